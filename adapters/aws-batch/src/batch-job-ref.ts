/**
 * What the core seals into a task id: the Batch job id, and for jobs this adapter submitted, when (epoch ms),
 * so a job not yet listed by DescribeJobs right after SubmitJob reads as "submitted", not as "unknown". A
 * Batch job never re-runs after SUCCEEDED or FAILED (retries are attempts inside the same job), so the id
 * alone pins a terminal answer. No ARN, queue or account goes in: the id is all the adapter needs.
 */
export type BatchJobRef = { jobId: string } | { jobId: string; submittedAt: number };

export function submittedAtOf(ref: BatchJobRef): number | undefined {
  return "submittedAt" in ref ? ref.submittedAt : undefined;
}
