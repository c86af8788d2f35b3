import type { WorkflowJob } from "./github-response-schemas.js";

/**
 * A one-line progress message for a run in progress, from its jobs: the first running job and its current
 * step, e.g. "build: step 3/7 'Run tests' (2 of 4 jobs done)".
 */
export function describeRunProgress(jobs: ReadonlyArray<WorkflowJob>): string | undefined {
  if (jobs.length === 0) return undefined;
  const done = jobs.filter((job) => job.status === "completed").length;
  const tally = `(${done} of ${jobs.length} job${jobs.length === 1 ? "" : "s"} done)`;
  const running = jobs.find((job) => job.status === "in_progress");
  if (running) {
    const steps = running.steps;
    const index = steps.findIndex((step) => step.status === "in_progress");
    if (index >= 0) return `${running.name}: step ${index + 1}/${steps.length} '${steps[index]!.name}' ${tally}`;
    return `${running.name}: running ${tally}`;
  }
  const waiting = jobs.find((job) => job.status !== "completed");
  if (waiting) return `${waiting.name}: ${waiting.status.replaceAll("_", " ")}, waiting for a runner ${tally}`;
  return `finishing ${tally}`;
}

/**
 * Whether the jobs show that someone cancelled the run while it is still stopping. GitHub has no
 * "cancelling" status; a job concluded "cancelled" is the trace a cancel leaves. A failed job next to it
 * means fail-fast cancelled its matrix siblings instead, which is no cancel of the run.
 */
export function cancellationEvidence(jobs: ReadonlyArray<WorkflowJob>): { since: string | null; stillRunning: number } | undefined {
  const cancelled = jobs.filter((job) => job.conclusion === "cancelled");
  if (cancelled.length === 0) return undefined;
  if (jobs.some((job) => job.conclusion === "failure" || job.conclusion === "timed_out")) return undefined;
  const times = cancelled.map((job) => job.completed_at).filter((time): time is string => time !== null).sort();
  return { since: times[0] ?? null, stillRunning: jobs.filter((job) => job.status !== "completed").length };
}
