import { type BatchClient, CancelJobCommand, TerminateJobCommand } from "@aws-sdk/client-batch";
import type { AdapterContext } from "@jobtasks/core";
import type { BatchJobRef } from "./batch-job-ref.js";
import { type BackoffPolicy, callWithBackoff } from "./call-with-backoff.js";
import type { DescribeJobsBatcher } from "./describe-jobs-batcher.js";
import { activeStatuses, cancelReasonPrefix, notStartedStatuses } from "./map-batch-job-status.js";

export interface CancelDependencies {
  client: BatchClient;
  describe: DescribeJobsBatcher;
  policy: BackoffPolicy;
  secrets: ReadonlyArray<string | undefined>;
  strategy: "auto" | "terminate";
}

/**
 * The reason sent with CancelJob/TerminateJob. Batch shows it as the job's statusReason, which is how the
 * status mapping recognises the cancel. Control characters are dropped and the principal is shortened: it
 * ends up in the AWS console.
 */
export function cancelReasonFor(principal: string): string {
  const who = principal.replace(/[\p{Cc}]/gu, "").slice(0, 128) || "an MCP client";
  return `${cancelReasonPrefix} by ${who} via MCP tasks/cancel`;
}

/**
 * Cooperative cancel. CancelJob only stops jobs that have not started and "succeeds" without effect on a
 * STARTING or RUNNING job, so "auto" checks the status first, uses TerminateJob once the job started (and
 * for array parents, whose children may be running while the parent is PENDING), and terminates after a
 * CancelJob that lost the race with the scheduler. Both calls are idempotent, so they are retried freely.
 */
export async function cancelBatchJob(ref: BatchJobRef, dependencies: CancelDependencies, context: AdapterContext): Promise<void> {
  const reason = cancelReasonFor(context.principal);
  const send = (operation: "CancelJob" | "TerminateJob") =>
    callWithBackoff(
      operation,
      () =>
        dependencies.client.send(
          operation === "CancelJob"
            ? new CancelJobCommand({ jobId: ref.jobId, reason })
            : new TerminateJobCommand({ jobId: ref.jobId, reason }),
          { abortSignal: context.signal },
        ),
      { policy: dependencies.policy, retryOn: "transient", secrets: dependencies.secrets, signal: context.signal },
    );

  if (dependencies.strategy === "terminate") {
    await send("TerminateJob");
    return;
  }
  const job = await dependencies.describe.load(ref.jobId, context.signal);
  const status = job.status ?? "";
  if (!activeStatuses.has(status)) {
    // Finished, or a status this adapter does not know: TerminateJob is the one call valid in any state.
    if (status !== "SUCCEEDED" && status !== "FAILED") await send("TerminateJob");
    return;
  }
  if (!notStartedStatuses.has(status) || job.arrayProperties?.size) {
    await send("TerminateJob");
    return;
  }
  await send("CancelJob");
  const after = await dependencies.describe.load(ref.jobId, context.signal);
  if (after.status === "STARTING" || after.status === "RUNNING") await send("TerminateJob");
}
