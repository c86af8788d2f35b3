/**
 * Finds credentials in whatever an adapter hands back or throws. Errors are walked through message, stack,
 * cause chain, AggregateError members and their own properties (a request object on an HTTP error is the
 * classic leak). Reports name the secret by position, so the test output does not leak it either.
 */

const maximumDepth = 12;

function collectTexts(
  value: unknown,
  path: string,
  texts: Array<{ path: string; text: string }>,
  seen: Set<unknown>,
  depth: number,
): void {
  if (depth > maximumDepth || value === null || value === undefined) return;
  if (typeof value === "string") {
    texts.push({ path, text: value });
    return;
  }
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") {
    texts.push({ path, text: String(value) });
    return;
  }
  if (typeof value !== "object" || seen.has(value)) return;
  seen.add(value);

  // URL and Headers keep their data out of enumerable properties.
  if (value instanceof URL) texts.push({ path, text: value.href });
  if (typeof Headers !== "undefined" && value instanceof Headers) {
    for (const [name, headerValue] of value) texts.push({ path: `${path}.headers.${name}`, text: headerValue });
  }
  if (value instanceof Map) {
    for (const [key, entry] of value) collectTexts(entry, `${path}.get(${String(key)})`, texts, seen, depth + 1);
  }
  if (value instanceof Error) {
    texts.push({ path: `${path}.message`, text: value.message });
    if (value.stack) texts.push({ path: `${path}.stack`, text: value.stack });
    collectTexts(value.cause, `${path}.cause`, texts, seen, depth + 1);
    if (value instanceof AggregateError) {
      value.errors.forEach((member, index) => collectTexts(member, `${path}.errors[${index}]`, texts, seen, depth + 1));
    }
  }
  for (const [key, entry] of Object.entries(value)) collectTexts(entry, `${path}.${key}`, texts, seen, depth + 1);
}

/**
 * Where any of `secrets` (or its URL-encoded or JSON-escaped form) occurs inside `value`; empty when
 * nothing leaks.
 * `label` names the value in the report ("the error thrown by doGetStatus").
 */
export function findSecretLeaks(value: unknown, secrets: readonly string[], label: string): string[] {
  const texts: Array<{ path: string; text: string }> = [];
  collectTexts(value, "", texts, new Set(), 0);
  const leaks: string[] = [];
  secrets.forEach((secret, index) => {
    if (!secret) return;
    const forms = new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]);
    for (const { path, text } of texts) {
      if ([...forms].some((form) => text.includes(form))) {
        leaks.push(`${label}: secrets[${index}] appears at ${path === "" ? "(the value itself)" : path.slice(1)}`);
      }
    }
  });
  return leaks;
}
