import type { PipelineJob } from "./gitlab-response-schemas.js";
import type { PipelineRef } from "./pipeline-ref.js";

/**
 * Which run of a pipeline a task follows, from the jobs GitLab lists (retried ones included). GitLab
 * retries in place: the pipeline keeps its id and status field, and the retry's jobs get ids above every
 * earlier one. A ref's job-id bounds therefore tell its run apart from earlier and later ones, from GitLab's
 * facts alone, the same on every replica and after a restart.
 */
export type PipelineRun =
  /** A retry's task before any retried job shows: the pipeline still shows the run before it. */
  | { kind: "retry-pending" }
  /** The pipeline shows the task's run: its status is the run's. `jobs` are the run's current jobs. */
  | { kind: "current"; jobs: PipelineJob[] }
  /**
   * A later retry replaced jobs after the task's run ended: the run's outcome, from its own jobs, is the
   * task's answer, whatever the pipeline shows now.
   */
  | { kind: "ended-before-retry"; jobs: PipelineJob[]; outcome: "success" | "failed" | "canceled" }
  /**
   * A job was retried while the task's run was unfinished: the run goes on in the pipeline, which the task
   * follows as it is now (its jobs are the pipeline's current ones).
   */
  | { kind: "retried-while-running"; jobs: PipelineJob[] };

/** Statuses of a job that has not finished and is not waiting for a person. */
const activeStatuses = new Set([
  "created",
  "waiting_for_resource",
  "preparing",
  "waiting_for_callback",
  "pending",
  "running",
  "scheduled",
  "canceling",
]);

export function isActiveJob(job: PipelineJob): boolean {
  return activeStatuses.has(job.status);
}

/** Statuses of a job that is done, or waits for a person; any other (an active one, or one GitLab adds later) is not. */
const settledStatuses = new Set(["success", "failed", "canceled", "skipped", "manual"]);

export function selectPipelineRun(ref: PipelineRef, jobs: readonly PipelineJob[]): PipelineRun {
  if ("retriedAfterJobId" in ref && !jobs.some((job) => job.id > ref.retriedAfterJobId))
    return { kind: "retry-pending" };
  if (!("jobsUpTo" in ref) || !jobs.some((job) => job.id > ref.jobsUpTo))
    return { kind: "current", jobs: currentJobs(jobs) };
  const upTo = ref.jobsUpTo;
  const runJobs = currentJobs(jobs.filter((job) => job.id <= upTo));
  const outcome = runOutcome(runJobs);
  if (
    outcome === undefined ||
    !endedBefore(
      runJobs,
      jobs.filter((job) => job.id > upTo),
    )
  )
    return { kind: "retried-while-running", jobs: currentJobs(jobs) };
  return { kind: "ended-before-retry", jobs: runJobs, outcome };
}

/**
 * Whether the run's jobs had all finished when the first newer job was created, by GitLab's timestamps: a
 * job retried while others of the run still ran (a flaky one, retried by hand) continues that run rather
 * than starting a later one. Without the timestamps, a run whose jobs are all settled counts as ended.
 */
function endedBefore(runJobs: readonly PipelineJob[], newerJobs: readonly PipelineJob[]): boolean {
  const lastFinished = latest(runJobs.map((job) => job.finished_at));
  const firstNewer = newerJobs
    .map((job) => job.created_at)
    .filter((time): time is string => typeof time === "string")
    .map(Date.parse)
    .sort((a, b) => a - b)[0];
  if (lastFinished === undefined || firstNewer === undefined) return true;
  return Date.parse(lastFinished) <= firstNewer;
}

/** The latest of some GitLab timestamps (ISO 8601, UTC), or undefined for none. */
export function latest(times: ReadonlyArray<string | null | undefined>): string | undefined {
  return times
    .filter((time): time is string => typeof time === "string")
    .sort((a, b) => Date.parse(a) - Date.parse(b))
    .at(-1);
}

/**
 * The newest job of each name: a retry's job replaces the earlier one of the same name (GitLab's job names
 * are unique within a pipeline), so these are the jobs a run consists of. Oldest first, in pipeline order.
 */
export function currentJobs(jobs: readonly PipelineJob[]): PipelineJob[] {
  const newest = new Map<string, PipelineJob>();
  for (const job of jobs) {
    const seen = newest.get(job.name);
    if (!seen || job.id > seen.id) newest.set(job.name, job);
  }
  return [...newest.values()].sort((a, b) => a.id - b.id);
}

/**
 * How a run ended, as GitLab decides a pipeline's status: a job that failed without being allowed to fails
 * it, else a canceled job cancels it, else it succeeded (allowed failures and optional manual jobs do not
 * count). Undefined while a job is not settled (active, or in a status this adapter does not know) or a
 * blocking manual job waits: the run had not ended.
 */
export function runOutcome(jobs: readonly PipelineJob[]): "success" | "failed" | "canceled" | undefined {
  if (jobs.some((job) => !settledStatuses.has(job.status))) return undefined;
  if (jobs.some((job) => job.status === "failed" && !job.allow_failure)) return "failed";
  if (jobs.some((job) => job.status === "canceled")) return "canceled";
  if (jobs.some((job) => job.status === "manual" && !job.allow_failure)) return undefined;
  return "success";
}
