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
 * A job that may show a cancel of the run: the first one concluded "cancelled" while the run is still in
 * progress. A job concluded "cancelled" is not enough on its own (its own concurrency group with
 * cancel-in-progress cancels it too, the run carrying on), so the caller confirms it with
 * `isRunCancelAnnotation` on that job's annotations. A failed job next to it means fail-fast cancelled its
 * matrix siblings, which is no cancel of the run either.
 */
export function cancelledJobCandidate(
  jobs: ReadonlyArray<WorkflowJob>,
): { jobId: number | string; since: string | null; stillRunning: number } | undefined {
  const cancelled = jobs.filter((job) => job.conclusion === "cancelled");
  if (cancelled.length === 0) return undefined;
  if (jobs.some((job) => job.conclusion === "failure" || job.conclusion === "timed_out")) return undefined;
  const first = [...cancelled].sort((a, b) => (a.completed_at ?? "\uffff").localeCompare(b.completed_at ?? "\uffff"))[0]!;
  return { jobId: first.id, since: first.completed_at, stillRunning: jobs.filter((job) => job.status !== "completed").length };
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
