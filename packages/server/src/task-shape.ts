import type { CallToolResult, InputRequest, JobSnapshot, JsonRpcErrorObject, TaskStatus } from "@jobtasks/core";

/** The Task fields of the tasks extension, as tools/call, tasks/get and notifications/tasks carry them. */
export interface TaskFields {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  /** How far the job is, when the adapter says (`progressMetaKey`): a client may draw a bar from it. */
  _meta?: Record<string, unknown>;
}

/** Where a task carries the adapter's `progress` ({ progress, total? }) in its `_meta`. */
export const progressMetaKey = "io.jobtasks/progress";

/** The answer to tools/call when the server made a task. */
export type CreateTaskResult = TaskFields & { resultType: "task" };

/** The task as tasks/get and notifications/tasks carry it, with the payload of its status. */
export type DetailedTask =
  | (TaskFields & { status: "working" })
  | (TaskFields & { status: "input_required"; inputRequests: Record<string, InputRequest> })
  | (TaskFields & { status: "completed"; result: CallToolResult & { resultType: "complete" } })
  | (TaskFields & { status: "failed"; error: JsonRpcErrorObject })
  | (TaskFields & { status: "cancelled" });

/** Everything about a task that does not come from the upstream snapshot. */
export interface TaskMetadata {
  taskId: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  ttlMs: number | null;
  pollIntervalMs?: number;
  /** Used for lastUpdatedAt when the upstream does not say when it last changed. */
  now: number;
}

/** JSON-RPC code for an internal error; a failed task whose cause is the server's or the upstream's. */
export const internalErrorCode = -32603;

/**
 * The status a client is shown: input_required only with requests to answer, and anything outside the
 * extension's five values (a careless adapter) as working. tools/call and tasks/get must agree on it.
 */
export function effectiveStatus(snapshot: JobSnapshot): TaskStatus {
  switch (snapshot.status) {
    case "completed":
    case "failed":
    case "cancelled":
      return snapshot.status;
    case "input_required":
      return snapshot.inputRequests && Object.keys(snapshot.inputRequests).length > 0 ? "input_required" : "working";
    default:
      return "working";
  }
}

function baseFields(snapshot: JobSnapshot, metadata: TaskMetadata): TaskFields {
  const status = effectiveStatus(snapshot);
  const fields: TaskFields = {
    taskId: metadata.taskId,
    status,
    createdAt: new Date(metadata.createdAt).toISOString(),
    lastUpdatedAt: lastUpdatedAtOf(snapshot, metadata),
    ttlMs: metadata.ttlMs,
  };
  if (snapshot.message !== undefined) fields.statusMessage = snapshot.message;
  const progress = snapshot.progress;
  if ((status === "working" || status === "input_required") && progress && Number.isFinite(progress.progress))
    fields._meta = { [progressMetaKey]: { ...progress } };
  const pollIntervalMs = snapshot.pollIntervalMs ?? metadata.pollIntervalMs;
  // Polling hints only make sense while the task can still change.
  if (pollIntervalMs !== undefined && (status === "working" || status === "input_required")) {
    fields.pollIntervalMs = Math.max(0, Math.round(pollIntervalMs));
  }
  return fields;
}

/**
 * When the task last changed: the upstream's time, but never before the task was created. A job watched
 * after it finished, a REST job whose update time is older than the task, or an upstream clock behind ours
 * would otherwise date a change before the task existed. Kept here, where every adapter's snapshot becomes
 * a task, rather than in each adapter; createdAt is sealed in the task id, so every replica answers the
 * same. A time that cannot be read counts as none.
 */
function lastUpdatedAtOf(snapshot: JobSnapshot, metadata: TaskMetadata): string {
  const upstream = snapshot.updatedAt === undefined ? Number.NaN : Date.parse(snapshot.updatedAt);
  const updatedAt = Number.isNaN(upstream) ? metadata.now : upstream;
  // The upstream's own text when it is late enough, so its precision and form are kept.
  if (updatedAt === upstream && upstream >= metadata.createdAt) return snapshot.updatedAt as string;
  return new Date(Math.max(metadata.createdAt, updatedAt)).toISOString();
}

/**
 * Turn an adapter snapshot into the task tasks/get answers (without `resultType`, which belongs to the
 * response). An inconsistent snapshot (completed without a result, input_required without requests) is
 * mended rather than passed on, so a client never sees a shape the extension does not allow.
 */
export function toDetailedTask(snapshot: JobSnapshot, metadata: TaskMetadata): DetailedTask {
  const fields = baseFields(snapshot, metadata);
  switch (fields.status) {
    case "completed":
      return {
        ...fields,
        status: "completed",
        // The official requester insists on resultType inside the result, as tools/call would carry it.
        result: { ...(snapshot.result ?? { content: [] }), resultType: "complete" },
      };
    case "failed":
      return {
        ...fields,
        status: "failed",
        error: snapshot.error ?? { code: internalErrorCode, message: snapshot.message ?? "The job failed" },
      };
    case "input_required":
      return { ...fields, status: "input_required", inputRequests: snapshot.inputRequests ?? {} };
    case "cancelled":
      return { ...fields, status: "cancelled" };
    default:
      return { ...fields, status: "working" };
  }
}

/** The task handle tools/call answers with: the task's fields, no payload, and resultType "task". */
export function toCreateTaskResult(snapshot: JobSnapshot, metadata: TaskMetadata): CreateTaskResult {
  const fields = baseFields(snapshot, metadata);
  return { ...fields, resultType: "task" };
}
