import type { JobSnapshot } from "@jobtasks/core";

/** What a task waiting only for the upstream to act on answers already given says meanwhile. */
export const answersSentMessage = "The answer was sent; waiting for the job to act on it";

/**
 * The snapshot as this process knows it: without the questions it already answered (see AnswerLedger),
 * which an upstream's status may go on listing for a moment after its answer endpoint took the answer.
 * With no question left, the task is working: nothing is asked of the client.
 */
export function hideAnsweredRequests(snapshot: JobSnapshot, answered: ReadonlySet<string>): JobSnapshot {
  if (snapshot.status !== "input_required" || !snapshot.inputRequests || answered.size === 0) return snapshot;
  const open = Object.entries(snapshot.inputRequests).filter(([key]) => !answered.has(key));
  if (open.length === Object.keys(snapshot.inputRequests).length) return snapshot;
  if (open.length > 0) return { ...snapshot, inputRequests: Object.fromEntries(open) };
  const { inputRequests: _answered, ...rest } = snapshot;
  return { ...rest, status: "working", message: answersSentMessage };
}
