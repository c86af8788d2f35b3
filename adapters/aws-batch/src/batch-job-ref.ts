import { z } from "@jobtasks/core";

/** Batch job ids are UUIDs; array children add ":<index>", multi-node parallel nodes "#<node>". */
export const batchJobIdSchema = z.string().regex(/^[A-Za-z0-9-]{1,64}(:\d{1,5})?(#\d{1,5})?$/, "an AWS Batch job id");

/** Epoch milliseconds. */
const instant = z.int().nonnegative();

/**
 * The adapter's `refSchema`, the two shapes this adapter seals: the server checks each ref it opens from a
 * task id against it, so the methods receive one of these or none. Strict, so that another
 * adapter's ref, or an ARN where an id belongs, never reaches DescribeJobs or TerminateJob.
 */
export const batchJobRefSchema = z.union([
  z.strictObject({ jobId: batchJobIdSchema }),
  z.strictObject({ jobId: batchJobIdSchema, submittedAt: instant }),
]);

/**
 * What the core seals into a task id: the Batch job id, and for jobs this adapter submitted, when (epoch ms),
 * so a job not yet listed by DescribeJobs right after SubmitJob reads as "submitted", not as "unknown". A
 * Batch job never re-runs after SUCCEEDED or FAILED (retries are attempts inside the same job), so the id
 * alone pins a terminal answer. No ARN, queue or account goes in: the id is all the adapter needs.
 */
export type BatchJobRef = z.infer<typeof batchJobRefSchema>;

export function submittedAtOf(ref: BatchJobRef): number | undefined {
  return "submittedAt" in ref ? ref.submittedAt : undefined;
}
