/**
 * What the core seals into a task id: the Batch job id, and when the task began (epoch ms): `submittedAt`
 * for jobs this adapter submitted, so a job not yet listed by DescribeJobs right after SubmitJob reads as
 * "submitted", not as "unknown"; `watchedAt` for jobs followed with watch_job (ids sealed by older versions
 * carry neither). A Batch job never re-runs after SUCCEEDED or FAILED (retries are attempts inside the same
 * job), so the id alone pins a terminal answer. No ARN, queue or account goes in: the id is all the adapter
 * needs.
 */
export type BatchJobRef = { jobId: string } | { jobId: string; submittedAt: number } | { jobId: string; watchedAt: number };

export function submittedAtOf(ref: BatchJobRef): number | undefined {
  return "submittedAt" in ref ? ref.submittedAt : undefined;
}

/** When the task began: submitted, or first watched. */
export function taskBeganAtOf(ref: BatchJobRef): number | undefined {
  if ("submittedAt" in ref) return ref.submittedAt;
  return "watchedAt" in ref ? ref.watchedAt : undefined;
}
