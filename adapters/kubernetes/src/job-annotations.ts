/**
 * The labels and annotations this adapter puts on the Jobs it creates and acts on. They live on the Job, so
 * every replica (and the same process after a restart) reads the same facts from the cluster.
 */
export const labels = {
  /** The server instance (the adapter's instanceLabel option). */
  instance: "jobtasks.io/instance",
  /** The tool that created the Job. */
  tool: "jobtasks.io/tool",
  /** A random id of one start, by which a create whose answer was lost is found again. */
  start: "jobtasks.io/start",
} as const;

export const annotations = {
  /** "pending" while a suspended start waits for its approval; "approved" or "rejected" once decided. */
  approval: "jobtasks.io/approval",
  /** When a task asked to cancel the Job: the Job then ends cancelled, not expired, when it is gone. */
  cancelRequested: "jobtasks.io/cancel-requested",
} as const;

/** An annotation's key as a JSON Pointer segment ("/" is written "~1"). */
export function pointerTo(key: string): string {
  return `/metadata/annotations/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
}

/** The JSON patch operation that sets one annotation, whether the Job has annotations yet or not. */
export function setAnnotation(
  current: { metadata?: { annotations?: Record<string, string> } } | undefined,
  key: string,
  value: string,
): object {
  return current?.metadata?.annotations
    ? { op: "add", path: pointerTo(key), value }
    : { op: "add", path: "/metadata/annotations", value: { [key]: value } };
}
