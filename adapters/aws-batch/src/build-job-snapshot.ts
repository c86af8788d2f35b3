import type { JobDetail } from "@aws-sdk/client-batch";
import type { JobSnapshot } from "@jobtasks/core";
import { buildFinishedResult, isoTimeOf } from "./batch-job-result.js";
import { hideArns } from "./hide-arns.js";
import { activeStatuses, mapAwsBatchStatus } from "./map-aws-batch-status.js";
import type { FailedChildren } from "./read-failed-children.js";
import type { LogTail } from "./read-log-tail.js";

/**
 * The task snapshot of a DescribeJobs entry: the phase and message of the status mapping, with the ARNs the
 * message quotes shortened (they carry the account id), the time of the job's last change, and for a
 * finished job its result, holding the log tail and failed children read for it.
 */
export function buildJobSnapshot(job: JobDetail, logTail?: LogTail, failedChildren?: FailedChildren): JobSnapshot {
  const phase = mapAwsBatchStatus(job);
  const snapshot: JobSnapshot = { ...phase, message: hideArns(phase.message) };
  if (phase.status === "working") {
    // An active array parent changes as its children do; a status jobtasks does not know carries no time.
    const summaryUpdatedAt = activeStatuses.has(phase.rawStatus)
      ? isoTimeOf(job.arrayProperties?.statusSummaryLastUpdatedAt)
      : undefined;
    if (summaryUpdatedAt) snapshot.updatedAt = summaryUpdatedAt;
    return snapshot;
  }
  if (phase.status === "completed") snapshot.result = buildFinishedResult(job, logTail, failedChildren);
  const stoppedAt = isoTimeOf(job.stoppedAt);
  if (stoppedAt) snapshot.updatedAt = stoppedAt;
  return snapshot;
}
