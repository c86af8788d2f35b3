/**
 * A depth bound for upstream JSON. JSON.parse reads any depth, but everything after it that walks a value
 * (redaction, JSON.stringify, JSONPath, zod's JSON checks) recurses and overflows the stack somewhere past
 * a few thousand levels. Real job records are a few levels deep; a body beyond the bound is refused where
 * it is read, so no later walk meets it.
 */

/** Deepest nesting of arrays and objects accepted in an upstream body. */
export const maxJsonDepth = 256;

/** Whether `value` nests arrays and objects more than `limit` levels deep. Iterative: never overflows. */
export function exceedsDepth(value: unknown, limit: number = maxJsonDepth): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (item === null || typeof item !== "object") continue;
    if (depth > limit) return true;
    for (const inner of Array.isArray(item) ? item : Object.values(item)) {
      if (inner !== null && typeof inner === "object") pending.push([inner, depth + 1]);
    }
  }
  return false;
}
