import { tasksExtensionId } from "./protocol-error.js";

/** Where a request's _meta (the SDK's "envelope") carries the capabilities its client declares for it. */
export const clientCapabilitiesKey = "io.modelcontextprotocol/clientCapabilities";

/**
 * Whether a request's _meta declares the tasks extension, for this request only: every path that serves
 * the extension (the SDK handlers, the tasks/get fast path, task subscriptions) asks this one function.
 */
export function declaresTasksExtension(meta: unknown): boolean {
  const extensions = objectAt(objectAt(meta, clientCapabilitiesKey), "extensions");
  return objectAt(extensions, tasksExtensionId) !== undefined;
}

function objectAt(value: unknown, key: string): object | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const inner: unknown = (value as Record<string, unknown>)[key];
  return typeof inner === "object" && inner !== null ? inner : undefined;
}
