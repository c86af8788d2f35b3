import type { JobDetail } from "@aws-sdk/client-batch";
import type { JobSnapshot } from "@jobtasks/core";

/** Every reason doCancel sends starts with this, so a FAILED job can be recognised as our cancel. */
export const cancelReasonPrefix = "jobtasks: cancelled";

/** Batch statuses in which a job has not finished; CancelJob only works on the first three. */
export const notStartedStatuses: ReadonlySet<string> = new Set(["SUBMITTED", "PENDING", "RUNNABLE"]);
export const activeStatuses: ReadonlySet<string> = new Set([...notStartedStatuses, "STARTING", "RUNNING"]);
export const finishedStatuses: ReadonlySet<string> = new Set(["SUCCEEDED", "FAILED"]);

/**
 * Reasons Batch writes itself when it stops a job nobody asked to stop: a job whose dependency failed is
 * cancelled, an attempt past its timeout is terminated, and a queue's jobStateTimeLimitActions cancel or
 * terminate a job left waiting too long ("Canceled by JobStateTimeLimit action due to reason:
 * CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY", as AWS documents it). The job failed for a reason of its own,
 * so the agent gets completed + isError with that reason, not "cancelled". Other reasons Batch may write
 * are unknown and keep the flag's meaning.
 */
const stoppedByBatchItself: readonly RegExp[] = [
  /^Dependent Job failed/i,
  /exceeded timeout/i,
  /JobStateTimeLimit action/i,
];

/**
 * Batch has no CANCELLED state: a cancelled or terminated job ends FAILED. It counts as cancelled when the
 * reason is the one doCancel sends, or when Batch flags it (isCancelled, isTerminated) with a reason that is
 * not one of Batch's own: most likely someone's CancelJob/TerminateJob (the console, the CLI), though a
 * reason Batch starts writing later would be read the same way until it is added above.
 */
export function wasCancelled(job: Pick<JobDetail, "statusReason" | "isCancelled" | "isTerminated">): boolean {
  const reason = job.statusReason ?? "";
  if (reason.startsWith(cancelReasonPrefix)) return true;
  if (job.isCancelled !== true && job.isTerminated !== true) return false;
  return !stoppedByBatchItself.some((pattern) => pattern.test(reason));
}

/** "734/1000 succeeded, 3 failed, 12 running" from an array parent's status summary. */
export function arrayProgress(job: Pick<JobDetail, "arrayProperties">): string | undefined {
  const properties = job.arrayProperties;
  if (!properties?.size) return undefined;
  const summary = properties.statusSummary ?? {};
  const parts = [`${summary.SUCCEEDED ?? 0}/${properties.size} succeeded`, `${summary.FAILED ?? 0} failed`];
  const running = (summary.RUNNING ?? 0) + (summary.STARTING ?? 0);
  if (running > 0) parts.push(`${running} running`);
  return parts.join(", ");
}

/**
 * The fields of a DescribeJobs entry that decide its phase and message; the rest is the result's. Each may
 * be missing: the SDK does not check answers.
 */
export type BatchStatusFields = Partial<
  Pick<
    JobDetail,
    "status" | "statusReason" | "isCancelled" | "isTerminated" | "arrayProperties" | "attempts" | "retryStrategy"
  >
>;

/** A job's phase as a task status, with AWS's own word for it and the message that explains it. */
export interface BatchJobPhase {
  status: Extract<JobSnapshot["status"], "working" | "completed" | "cancelled">;
  rawStatus: string;
  message: string;
}

function workingMessage(job: BatchStatusFields, rawStatus: string, known: boolean): string {
  const details: string[] = [];
  // statusReason explains waits such as RUNNABLE with no capacity, which can last forever.
  if (job.statusReason) details.push(job.statusReason);
  const progress = arrayProgress(job);
  if (progress) details.push(progress);
  const previousAttempts = job.attempts?.length ?? 0;
  const allowedAttempts = job.retryStrategy?.attempts;
  if (previousAttempts > 0 && allowedAttempts) details.push(`attempt ${previousAttempts + 1} of ${allowedAttempts}`);
  if (!known) details.push("a status jobtasks does not know; still watching");
  return details.length > 0 ? `${rawStatus}: ${details.join("; ")}` : rawStatus;
}

/**
 * The one status mapping: an AWS Batch status with its reason and cancel flags in, a task phase and its
 * message out. Pure, and upstream words stay as AWS wrote them: the snapshot built from it
 * (build-job-snapshot.ts) shortens the ARNs they quote. The set of statuses is open: anything not listed
 * stays working with its raw value shown, never terminal. A FAILED job that was not cancelled is
 * `completed`: it ran and failed, which its result says with isError.
 */
export function mapAwsBatchStatus(job: BatchStatusFields): BatchJobPhase {
  // A string whatever AWS sent: JobSnapshot.rawStatus is typed so, and an unexpected value stays visible.
  const rawStatus = String(job.status ?? "UNKNOWN");
  if (activeStatuses.has(rawStatus)) {
    return { status: "working", rawStatus, message: workingMessage(job, rawStatus, true) };
  }
  if (rawStatus === "FAILED" && wasCancelled(job)) {
    return { status: "cancelled", rawStatus, message: `Cancelled: ${job.statusReason || "cancelled"}` };
  }
  if (finishedStatuses.has(rawStatus)) {
    const message =
      rawStatus === "SUCCEEDED" ? "SUCCEEDED" : `FAILED${job.statusReason ? `: ${job.statusReason}` : ""}`;
    return { status: "completed", rawStatus, message };
  }
  return { status: "working", rawStatus, message: workingMessage(job, rawStatus, false) };
}
