import type { JobDetail } from "@aws-sdk/client-batch";
import { InvalidToolInputError, JobNotFoundError, type JobSnapshot, type JobTool, z } from "@jobtasks/core";
import type { ResolvedWatchTool } from "./aws-batch-options.js";
import { batchJobResultSchema } from "./batch-job-result.js";
import { batchJobIdSchema, type BatchJobRef } from "./batch-job-ref.js";
import type { DescribeJobsBatcher } from "./describe-jobs-batcher.js";
import { resourceNameOf } from "./hide-arns.js";

const watchInputSchema = z.strictObject({
  jobId: batchJobIdSchema.describe("The AWS Batch job id (a UUID; array children end in :<index>)"),
});

type WatchInput = z.infer<typeof watchInputSchema>;

function queueAllowed(job: JobDetail, allowedQueues: string[] | undefined): boolean {
  if (!allowedQueues) return true;
  const queue = job.jobQueue ?? "";
  return allowedQueues.some((allowed) => allowed === queue || resourceNameOf(allowed) === resourceNameOf(queue));
}

/**
 * A task for a job submitted elsewhere. The job is read before the task exists, so the id is known to be
 * real; a job outside the allowed queues gets the same answer as a missing one, so existence does not leak.
 */
export function createWatchJobTool(
  options: ResolvedWatchTool,
  dependencies: {
    describe: DescribeJobsBatcher;
    snapshotOf(job: JobDetail, signal: AbortSignal): Promise<JobSnapshot>;
  },
): JobTool<BatchJobRef, WatchInput> {
  const notVisible = (cause?: unknown) =>
    new InvalidToolInputError(
      "jobId",
      "no AWS Batch job with this id is visible here (unknown, expired, or not allowed)",
      { cause },
    );
  return {
    name: options.tool,
    title: "Watch an AWS Batch job",
    description:
      "Follow an AWS Batch job that was submitted elsewhere, by its job id, as a task: status and reason while it " +
      "waits or runs, progress for array jobs, exit code and result when it ends.",
    inputSchema: watchInputSchema,
    outputSchema: batchJobResultSchema,
    async doStart(input, context) {
      let job: JobDetail;
      try {
        job = await dependencies.describe.load(input.jobId, context.signal);
      } catch (error) {
        if (error instanceof JobNotFoundError) throw notVisible(error);
        throw error;
      }
      if (!queueAllowed(job, options.allowedQueues)) throw notVisible();
      return { ref: { jobId: input.jobId }, snapshot: await dependencies.snapshotOf(job, context.signal) };
    },
  };
}
