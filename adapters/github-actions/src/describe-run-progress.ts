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

/** How many cancelled jobs' annotations one poll may read, oldest cancel first. */
export const maxCancelledJobsChecked = 3;

/**
 * The jobs that may show a cancel of the run: those concluded "cancelled" while the run is still in
 * progress, oldest cancel first, at most `maxCancelledJobsChecked`. A job concluded "cancelled" is not
 * enough on its own (its own concurrency group with cancel-in-progress cancels it too, the run carrying
 * on), so the caller confirms it with `isRunCancelAnnotation` on each one's annotations until one matches;
 * an earlier job cancelled by its concurrency group does not hide a later cancel of the run. A failed job
 * next to them means fail-fast cancelled its matrix siblings, which is no cancel of the run either.
 */
export function cancelledJobCandidates(
  jobs: ReadonlyArray<WorkflowJob>,
): { candidates: Array<{ jobId: number | string; since: string | null }>; stillRunning: number } | undefined {
  const cancelled = jobs.filter((job) => job.conclusion === "cancelled");
  if (cancelled.length === 0) return undefined;
  if (jobs.some((job) => job.conclusion === "failure" || job.conclusion === "timed_out")) return undefined;
  const oldestFirst = [...cancelled].sort((a, b) =>
    (a.completed_at ?? "\uffff").localeCompare(b.completed_at ?? "\uffff"),
  );
  return {
    candidates: oldestFirst
      .slice(0, maxCancelledJobsChecked)
      .map((job) => ({ jobId: job.id, since: job.completed_at })),
    stillRunning: jobs.filter((job) => job.status !== "completed").length,
  };
}

/**
 * GitHub's annotation on the jobs of a run someone cancelled: "The run was canceled by @octocat." Other
 * cancels read differently ("Canceling since a higher priority waiting request for '<group>' exists").
 * Matching GitHub's wording is the only run-specific trace GitHub gives while the run stops; should the
 * wording change, the adapter only stops recognising cancels (no "cancel requested", no force-cancel),
 * it never force-cancels a healthy run.
 */
export function isRunCancelAnnotation(message: string | null): boolean {
  return message !== null && /^The run was cancell?ed by\b/i.test(message.trim());
}
