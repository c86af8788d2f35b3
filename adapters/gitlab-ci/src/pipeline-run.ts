import type { PipelineJob } from "./gitlab-response-schemas.js";
import type { PipelineRef } from "./pipeline-ref.js";

/**
 * Which run of a pipeline a task follows, from the jobs GitLab lists (retried ones included). GitLab
 * retries in place: the pipeline keeps its id and status field, and the retry's jobs get ids above every
 * earlier one. A ref's job-id bounds therefore tell its run apart from earlier and later ones, and GitLab's
 * timestamps tell the newer jobs that still belong to it (a job `retry:` retried as it failed, or one retried
 * while the run ran): GitLab's facts alone, the same on every replica and after a restart.
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
   * A job was retried as part of the task's run (by GitLab's `retry:` as it failed, or while the run still
   * ran), or the run shows unfinished: the run goes on in the pipeline, which the task follows as it is now
   * (its jobs are the pipeline's current ones).
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
  const upTo = runEnd(ref.jobsUpTo, jobs);
  if (!jobs.some((job) => job.id > upTo)) return { kind: "retried-while-running", jobs: currentJobs(jobs) };
  const laterRunCreated = timeOf(jobs.filter((job) => job.id > upTo).sort((a, b) => a.id - b.id)[0]?.created_at);
  const runJobs = currentJobs(jobs.filter((job) => job.id <= upTo)).map((job) =>
    rerunByLaterRun(job, laterRunCreated) ? { ...job, status: "skipped", started_at: null, finished_at: null } : job,
  );
  const outcome = runOutcome(runJobs);
  // A run that shows unfinished, though a later retry started, is followed as the pipeline goes on.
  if (outcome === undefined) return { kind: "retried-while-running", jobs: currentJobs(jobs) };
  return { kind: "ended-before-retry", jobs: runJobs, outcome };
}

/**
 * How far GitLab's newer jobs are still the task's run (the highest job id of it): from `jobsUpTo`, each
 * newer job, oldest first, joins the run while `continuesRun` says it does; the first that does not starts
 * a later run, and so does every job after it.
 */
function runEnd(jobsUpTo: number, jobs: readonly PipelineJob[]): number {
  let upTo = jobsUpTo;
  for (const newer of jobs.filter((job) => job.id > jobsUpTo).sort((a, b) => a.id - b.id)) {
    const runJobs = jobs.filter((job) => job.id <= upTo);
    if (!continuesRun(newer, runJobs)) break;
    upTo = newer.id;
  }
  return upTo;
}

/**
 * How soon after a job failed GitLab's `retry:` keyword has created its retry. GitLab creates it while it
 * marks the job failed, in the same request (milliseconds; a second or two on a busy instance), whereas a
 * retry of the pipeline needs someone who saw it fail: GitLab marks the pipeline failed in the background,
 * a task reads that on its next poll, and only then can an agent or a person retry it.
 */
export const automaticRetryWindowMs = 10_000;

/**
 * Whether a job newer than the run continues it rather than starting a later run, by GitLab's timestamps:
 * - GitLab's `retry:` retried a job of the run as it failed: `newer` replaces a failed job of the same
 *   name and was created within `automaticRetryWindowMs` of that job's `finished_at` (the pipeline ran
 *   on meanwhile, and its end is the run's);
 * - a job was retried while the run still ran (a flaky job retried by hand): a job of the run that had
 *   started before `newer` was created finished after it.
 * When GitLab does not give the timestamps that tell (a failed job without `finished_at`, a retry without
 * `created_at`), it continues the run: the task follows the pipeline, rather than end on a failure that may
 * have been retried at once.
 */
function continuesRun(newer: PipelineJob, runJobs: readonly PipelineJob[]): boolean {
  const created = timeOf(newer.created_at);
  if (created === undefined) return true;
  const replaced = runJobs.filter((job) => job.name === newer.name).sort((a, b) => b.id - a.id)[0];
  if (replaced?.status === "failed") {
    const failedAt = timeOf(replaced.finished_at);
    if (failedAt === undefined || created - failedAt <= automaticRetryWindowMs) return true;
  }
  // Only a job that started before `newer` was created ran beside it: a pipeline retry reruns the jobs the
  // run skipped under their own ids, and their finish is the retry's.
  const ranBeside = runJobs.filter((job) => {
    const started = timeOf(job.started_at);
    return started === undefined || started < created;
  });
  const lastFinished = timeOf(latest(ranBeside.map((job) => job.finished_at)));
  return lastFinished !== undefined && lastFinished > created;
}

/**
 * Whether a job of the task's run is one a later retry of the pipeline reran: GitLab reruns the jobs a run
 * skipped under their own ids, so such a job started after the later run began, or has not started and
 * waits again. In the task's run it never ran (skipped). Unknown when the later run's start is not given:
 * then the job counts as it shows, and an unfinished one makes the task follow the pipeline.
 */
function rerunByLaterRun(job: PipelineJob, laterRunCreated: number | undefined): boolean {
  if (laterRunCreated === undefined) return false;
  const started = timeOf(job.started_at);
  if (started !== undefined) return started >= laterRunCreated;
  return isActiveJob(job);
}

/** A GitLab timestamp in milliseconds, or undefined when it is missing or unreadable. */
function timeOf(time: string | null | undefined): number | undefined {
  const parsed = typeof time === "string" ? Date.parse(time) : Number.NaN;
  return Number.isNaN(parsed) ? undefined : parsed;
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
