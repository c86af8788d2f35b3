/**
 * What the core seals into a task id: the Batch job id, and for jobs this adapter submitted, when (epoch ms),
 * so a job not yet listed by DescribeJobs right after SubmitJob reads as "submitted", not as "unknown". A
 * Batch job never re-runs after SUCCEEDED or FAILED (retries are attempts inside the same job), so the id
 * alone pins a terminal answer. No ARN, queue or account goes in: the id is all the adapter needs.
 *
 * `{ jobId, watchedAt }` was sealed by watch_job for a while, to keep lastUpdatedAt from running before the
 * task's createdAt; the server now does that for every adapter, so watch_job seals `{ jobId }` again. The
 * member stays so that such ids keep opening (the adapter reads only their jobId).
 */
export type BatchJobRef =
  | { jobId: string }
  | { jobId: string; submittedAt: number }
  | { jobId: string; watchedAt: number };

export function submittedAtOf(ref: BatchJobRef): number | undefined {
  return "submittedAt" in ref ? ref.submittedAt : undefined;
}
