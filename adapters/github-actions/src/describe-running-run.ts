import { UpstreamError, type AdapterContext } from "@jobtasks/core";
import { cancelledJobCandidates, describeRunProgress, isRunCancelAnnotation } from "./describe-run-progress.js";
import type { GithubApi } from "./github-actions-api.js";
import type { WorkflowRun } from "./github-response-schemas.js";
import type { RunRef } from "./run-ref.js";

export interface RunningRunDependencies {
  api: GithubApi;
  settings: { forceCancelAfterMs: number | null; pollIntervalMs: number };
  now: () => number;
}

/**
 * The message of a run in progress: its progress, or "cancel requested" once GitHub's own note on a
 * cancelled job shows that someone cancelled the run (then, past the grace period, a force-cancel).
 */
export async function describeRunningRun(
  dependencies: RunningRunDependencies,
  ref: RunRef,
  run: WorkflowRun,
  context: AdapterContext,
): Promise<string> {
  const jobs = (await dependencies.api.listAttemptJobs(ref, { signal: context.signal, notFoundMeansGone: true })).jobs;
  const progress = describeRunProgress(jobs) ?? "in progress";
  const cancelling = cancelledJobCandidates(jobs);
  if (!cancelling) return progress;
  const cancelledAt = await findRunCancel(dependencies.api, ref, cancelling.candidates, context);
  if (cancelledAt === undefined) return progress;
  let message = `cancel requested: waiting for GitHub to stop ${cancelling.stillRunning} running job${cancelling.stillRunning === 1 ? "" : "s"}`;
  const grace = dependencies.settings.forceCancelAfterMs;
  const since = cancelledAt === null ? Number.NaN : Date.parse(cancelledAt);
  if (grace === null || Number.isNaN(since)) return message;
  const schedule = forceCancelSchedule(since + grace, dependencies.now(), dependencies.settings.pollIntervalMs);
  if (schedule === "not due") return message;
  if (schedule !== "send") {
    return `${message}; force-cancel due after a grace of ${Math.round(grace / 1000)} s, next sent from ${new Date(schedule).toISOString()}`;
  }
  // Derived from GitHub's own data on every poll, so it works on any replica and after a restart.
  try {
    await dependencies.api.cancelRun(ref, true, { signal: context.signal });
    message += `; force-cancel sent after a grace of ${Math.round(grace / 1000)} s`;
  } catch (error) {
    if (context.signal.aborted) throw error;
    context.logger.warn({ run: run.id, error: (error as Error).message }, "force-cancel was refused");
    message += "; force-cancel was refused";
  }
  return message;
}

/**
 * The completion time of the first candidate job whose annotations say the run was cancelled, or
 * undefined when none does. The annotations need the Checks permission, which fine-grained tokens cannot
 * have: a refusal (403, 404, 401) is no evidence of a run cancel, so the run keeps its progress message and
 * is never force-cancelled. Only a failure that may pass (5xx, rate limit, broken connection) fails the
 * read, so that the next poll looks again.
 */
async function findRunCancel(
  api: GithubApi,
  ref: RunRef,
  candidates: ReadonlyArray<{ jobId: number | string; since: string | null }>,
  context: AdapterContext,
): Promise<string | null | undefined> {
  for (const candidate of candidates) {
    let annotations;
    try {
      annotations = await api.listJobAnnotations(ref, candidate.jobId, { signal: context.signal });
    } catch (error) {
      if (context.signal.aborted || !(error instanceof UpstreamError) || error.isRetryable) throw error;
      context.logger.debug(
        { runId: ref.runId, httpStatus: error.httpStatus },
        "check-run annotations refused; a cancel of the run cannot be recognised",
      );
      return undefined;
    }
    if (annotations.some((annotation) => isRunCancelAnnotation(annotation.message))) return candidate.since;
  }
  return undefined;
}

/**
 * When a status read may send force-cancel, without remembering whether one was sent: only in the first
 * `2 × pollIntervalMs` (at least 1 min) of every 10 min (at least 4 windows) from the moment it became due
 * (the first run-cancelled job's completed_at plus the grace, both GitHub's). A force-cancel that worked
 * ends the run within moments, so one window is usually all it takes; one that did not is tried again
 * 10 min later, instead of on every poll by every client (a write costs secondary rate-limit points).
 * Answers "not due", "send", or the time the next window opens.
 */
export function forceCancelSchedule(dueAt: number, now: number, pollIntervalMs: number): "not due" | "send" | number {
  if (now < dueAt) return "not due";
  const windowMs = Math.max(2 * pollIntervalMs, 60_000);
  const periodMs = Math.max(10 * 60_000, 4 * windowMs);
  const intoPeriod = (now - dueAt) % periodMs;
  return intoPeriod < windowMs ? "send" : now - intoPeriod + periodMs;
}
