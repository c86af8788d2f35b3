import type { AdapterContext } from "@jobtasks/core";
import type { AwsBatchApi } from "./aws-batch-api.js";
import type { BatchJobRef } from "./batch-job-ref.js";
import type { BackoffPolicy } from "./call-with-backoff.js";
import { cancelReasonPrefix } from "./map-aws-batch-status.js";

export interface CancelDependencies {
  api: AwsBatchApi;
  policy: BackoffPolicy;
}

/**
 * The reason sent with TerminateJob. Batch shows it as the job's statusReason to anyone who reads the job
 * (another caller following it with watch_job, the console, the activity log), so it names nobody: who
 * cancelled is written to the server's log instead. The status mapping recognises it by its prefix.
 */
export const cancelReason = `${cancelReasonPrefix} via MCP tasks/cancel`;

/**
 * Cooperative cancel with one TerminateJob, whatever the job's state: Batch cancels a job that has not
 * reached STARTING and stops one that has, array children included. CancelJob would need the state first,
 * and that read races the scheduler: a job placed a moment before CancelJob arrives is not cancelled, while
 * CancelJob still "succeeds". TerminateJob on a finished job changes nothing, so it is retried freely.
 */
export async function cancelBatchJob(
  ref: BatchJobRef,
  dependencies: CancelDependencies,
  context: AdapterContext,
): Promise<void> {
  context.logger.info(
    { jobId: ref.jobId, principal: context.principal },
    "terminating an AWS Batch job for tasks/cancel",
  );
  await dependencies.api.terminateJob(ref.jobId, cancelReason, { retry: dependencies.policy, signal: context.signal });
}
