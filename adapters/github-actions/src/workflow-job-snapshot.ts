import type { JobSnapshot } from "@jobtasks/core";
import { cancelledJobCandidates, describeRunProgress } from "./describe-run-progress.js";
import type { WorkflowJob } from "./github-response-schemas.js";
import { withPollInterval, type SnapshotDependencies } from "./read-run-snapshot.js";
import { withJob, type RunMemory } from "./run-memory.js";
import type { RunRef } from "./run-ref.js";

export interface WorkflowJobSnapshotDependencies {
  memory: RunMemory;
  snapshots: Pick<SnapshotDependencies, "budget" | "settings" | "now">;
}

/**
 * The run's snapshot after a `workflow_job` delivery, without a request: the delivery carries the job whole
 * (status, conclusion, steps, as the jobs list does), and the run's other jobs are those its last read
 * listed, moved on by the deliveries since. Undefined where a read must say more: a run this process has
 * not read with all its jobs, one not known to be running (queued, waiting for an approval, finished), a job
 * waiting for an environment (the approval form comes from the pending deployments) and jobs that show
 * cancelled (whether someone cancelled the run is in their annotations). The message is the one a status
 * read would give: describeRunProgress over the same jobs.
 */
export function workflowJobSnapshot(
  dependencies: WorkflowJobSnapshotDependencies,
  ref: RunRef,
  job: WorkflowJob,
): JobSnapshot | undefined {
  const remembered = dependencies.memory.recall(ref);
  if (!remembered?.jobs) return undefined;
  if (job.status !== "queued" && job.status !== "in_progress" && job.status !== "completed") return undefined;
  // A job that started or finished means the run runs; a job queued alone says nothing of a queued run.
  const running = remembered.status === "in_progress" || job.status !== "queued";
  if (!running || !["in_progress", "queued", "requested", "pending"].includes(remembered.status ?? ""))
    return undefined;
  const jobs = withJob(remembered.jobs, job);
  if (cancelledJobCandidates(jobs)) return undefined;
  const updatedAt = latestOf([remembered.updatedAt, ...timesOf(job)]);
  dependencies.memory.rememberRun(ref, { status: "in_progress", updated_at: updatedAt });
  dependencies.memory.rememberJobs(ref, { total_count: jobs.length, jobs });
  return withPollInterval(dependencies.snapshots, 2, {
    status: "working",
    rawStatus: "in_progress",
    updatedAt,
    message: describeRunProgress(jobs) ?? "in progress",
  });
}

function timesOf(job: WorkflowJob): string[] {
  const times = [job.started_at, job.completed_at];
  for (const step of job.steps) times.push(step.started_at, step.completed_at);
  return times.filter((time): time is string => time !== null && !Number.isNaN(Date.parse(time)));
}

/** The latest of GitHub's times, as GitHub wrote it. */
function latestOf(times: readonly string[]): string {
  return times.reduce((latest, time) => (Date.parse(time) > Date.parse(latest) ? time : latest));
}
