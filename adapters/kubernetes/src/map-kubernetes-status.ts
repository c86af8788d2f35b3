import type { V1Job } from "@kubernetes/client-node";
import { annotations } from "./job-annotations.js";

/**
 * A Job's state in the extension's terms, from its conditions, counts, spec and this adapter's
 * annotations. Pure, and open: a condition type Kubernetes adds later lands in the working branch with
 * its name as the raw status, never in a terminal one.
 */
export type JobPhase =
  | { phase: "working"; rawStatus: string; message: string; needsPods?: boolean }
  | { phase: "approval"; rawStatus: "Suspended" }
  | { phase: "completed"; rawStatus: string; isError: boolean; reason?: string; message: string }
  | { phase: "cancelled"; rawStatus: "Cancelled"; message: string };

const knownConditions = new Set(["Complete", "Failed", "Suspended", "FailureTarget", "SuccessCriteriaMet"]);

export function trueConditions(job: V1Job): Map<string, { reason?: string; message?: string }> {
  const found = new Map<string, { reason?: string; message?: string }>();
  for (const condition of job.status?.conditions ?? [])
    if (condition.status === "True")
      found.set(condition.type, {
        ...(condition.reason ? { reason: condition.reason } : {}),
        ...(condition.message ? { message: condition.message } : {}),
      });
  return found;
}

export function mapKubernetesStatus(job: V1Job): JobPhase {
  const conditions = trueConditions(job);
  const jobAnnotations = job.metadata?.annotations ?? {};
  const status = job.status ?? {};
  const active = status.active ?? 0;
  if (jobAnnotations[annotations.approval] === "rejected")
    return {
      phase: "completed",
      rawStatus: "Rejected",
      isError: true,
      reason: "Rejected",
      message: "the start was rejected: the Job was deleted before it ran",
    };
  const complete = conditions.get("Complete");
  if (complete) return { phase: "completed", rawStatus: "Complete", isError: false, message: "the Job completed" };
  const failed = conditions.get("Failed");
  if (failed)
    return {
      phase: "completed",
      rawStatus: "Failed",
      isError: true,
      ...(failed.reason ? { reason: failed.reason } : {}),
      message: `the Job failed${failed.reason ? ` (${failed.reason})` : ""}${failed.message ? `: ${failed.message}` : ""}`,
    };
  if (jobAnnotations[annotations.cancelRequested] !== undefined) {
    if (active === 0 && (status.terminating ?? 0) === 0)
      return { phase: "cancelled", rawStatus: "Cancelled", message: "the Job was cancelled: deleted with its pods" };
    return {
      phase: "working",
      rawStatus: "CancelRequested",
      message: `cancel requested: deleting the Job and its pods (${active} active)`,
    };
  }
  if (job.metadata?.deletionTimestamp)
    return { phase: "working", rawStatus: "Terminating", message: "the Job is being deleted" };
  const failureTarget = conditions.get("FailureTarget");
  if (failureTarget)
    return {
      phase: "working",
      rawStatus: "FailureTarget",
      message: `failing${failureTarget.reason ? ` (${failureTarget.reason})` : ""}: its pods are being stopped`,
    };
  if (conditions.has("SuccessCriteriaMet"))
    return { phase: "working", rawStatus: "SuccessCriteriaMet", message: "succeeded: its last pods are finishing" };
  if (job.spec?.suspend === true) {
    if (jobAnnotations[annotations.approval] === "pending") return { phase: "approval", rawStatus: "Suspended" };
    return {
      phase: "working",
      rawStatus: "Suspended",
      message: "suspended (spec.suspend is true): no pod runs until someone resumes it",
    };
  }
  for (const type of conditions.keys())
    if (!knownConditions.has(type))
      return {
        phase: "working",
        rawStatus: type,
        message: `Kubernetes reports the condition '${type}', which this adapter does not know`,
      };
  const counts = describeCounts(job);
  if (active > 0) {
    const ready = status.ready;
    const allReady = ready === undefined || ready >= active;
    return {
      phase: "working",
      rawStatus: "Running",
      message: `running: ${counts}`,
      ...(allReady ? {} : { needsPods: true }),
    };
  }
  return {
    phase: "working",
    rawStatus: "Pending",
    message: `pending: no pod is running yet (${counts})`,
    needsPods: true,
  };
}

/** "2 active (1 ready), 3/10 succeeded, 1 failed of backoffLimit 6, indexes 0-2 done". */
export function describeCounts(job: V1Job): string {
  const status = job.status ?? {};
  const parts: string[] = [];
  const active = status.active ?? 0;
  parts.push(`${active} active${status.ready !== undefined && active > 0 ? ` (${status.ready} ready)` : ""}`);
  const completions = job.spec?.completions;
  parts.push(`${status.succeeded ?? 0}${completions !== undefined ? `/${completions}` : ""} succeeded`);
  const failedCount = status.failed ?? 0;
  if (failedCount > 0)
    parts.push(
      `${failedCount} failed${job.spec?.backoffLimit !== undefined ? ` of backoffLimit ${job.spec.backoffLimit}` : ""}`,
    );
  if (job.spec?.completionMode === "Indexed" && status.completedIndexes)
    parts.push(`indexes ${status.completedIndexes} done`);
  if (job.spec?.completionMode === "Indexed" && status.failedIndexes)
    parts.push(`indexes ${status.failedIndexes} failed`);
  return parts.join(", ");
}
