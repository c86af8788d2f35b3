import type { AnyJobAdapter, JsonValue } from "@jobtasks/core";

/**
 * The ref a task id carries, as its adapter's `refSchema` reads it, or undefined when it does not fit (a
 * ref sealed by an older version of the adapter). Checked before any `do*` method sees the ref, so an
 * adapter that declares its schema never parses a ref itself. Without a schema the ref passes as it is.
 */
export function readAdapterRef(adapter: AnyJobAdapter, ref: JsonValue): JsonValue | undefined {
  if (adapter.refSchema === undefined) return ref;
  const parsed = adapter.refSchema.safeParse(ref);
  return parsed.success ? (parsed.data as JsonValue) : undefined;
}
