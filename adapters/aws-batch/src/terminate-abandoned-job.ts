import { TerminateJobCommand } from "@aws-sdk/client-batch";
import type { AdapterLogger } from "@jobtasks/core";
import { callWithBackoff } from "./call-with-backoff.js";
import { cancelReasonPrefix } from "./map-aws-batch-status.js";
import type { SubmitDependencies, SubmittedJob } from "./submit-batch-job.js";

/** Shown as the job's statusReason; the status mapping reads the prefix as a cancel. */
export const abandonedJobReason = `${cancelReasonPrefix}, the client left before the task was handed out`;

/**
 * Terminate a job whose client left while SubmitJob was in flight: nobody will ever hold its task id, so
 * left alone it would run (and cost) unseen. Not bound to the client's signal, which has already fired;
 * each call is bounded by the client's request timeout and the retry policy. Never throws: the caller
 * reports the abort either way, and the log says what became of the job.
 */
export async function terminateAbandonedJob(submitted: SubmittedJob, dependencies: SubmitDependencies, logger: AdapterLogger): Promise<void> {
  const fields = { jobId: submitted.jobId, jobName: submitted.jobName };
  try {
    await callWithBackoff(
      "TerminateJob",
      () => dependencies.client.send(new TerminateJobCommand({ jobId: submitted.jobId, reason: abandonedJobReason })),
      { policy: dependencies.policy, retryOn: "transient", secrets: dependencies.secrets },
    );
    logger.info(fields, "the client left while SubmitJob was in flight; terminated the job it created");
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    logger.warn({ ...fields, error: reason }, "the client left while SubmitJob was in flight; the job it created could not be terminated and may still run");
  }
}
