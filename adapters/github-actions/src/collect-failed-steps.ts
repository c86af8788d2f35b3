import { UpstreamError } from "@jobtasks/core";
import type { GithubApi } from "./github-actions-api.js";
import type { WorkflowJob, WorkflowStep } from "./github-response-schemas.js";
import type { FailedStep } from "./run-result-schema.js";
import type { RunRef } from "./run-ref.js";
import { readStepLogTails, type LogTail } from "./tail-step-log.js";

export interface LogBudget {
  maxLinesPerStep: number;
  maxBytes: number;
  maxFailedJobs: number;
  /** Bytes read of one job log at most. */
  maxReadBytes: number;
  /** Time spent on all log downloads of one status read at most. */
  maxReadMs: number;
}

export interface CollectSettings {
  budget: LogBudget;
  signal: AbortSignal;
  /** When the attempt finished, by GitHub's clock (its updated_at): the same on every replica. */
  finishedAt: string;
  now: () => number;
}

/**
 * How long after the run finished a log download that keeps failing in a way that may pass (5xx, rate
 * limit, broken connection) fails the status read, so that a later read gets the log. Past it the failure
 * is noted in the result instead: it stays well inside the server's 10-minute outage budget, so a finished
 * run never ends `failed` because of its logs.
 */
export const logRetryWindowMs = 5 * 60_000;

const failingConclusions = new Set(["failure", "timed_out", "startup_failure", "action_required"]);

/**
 * The failed steps of an attempt with the end of their logs: one log download per failed job, at most
 * `maxFailedJobs` of them, the byte budget shared evenly by the steps. A log that cannot be had is noted in
 * place of the text: one GitHub no longer has (404, 410), one it refuses (403 that is no rate limit, 401),
 * one that did not come within the time budget, and one whose failures that may pass outlast
 * `logRetryWindowMs` after the run finished. Within that window such a failure is thrown: the result is
 * kept for good, so it must not lose the log to a passing fault; the snapshot stays working and the next
 * read tries again.
 */
export async function collectFailedSteps(
  api: GithubApi,
  ref: RunRef,
  jobs: ReadonlyArray<WorkflowJob>,
  settings: CollectSettings,
): Promise<FailedStep[]> {
  const { budget, signal } = settings;
  const failedJobs = jobs.filter((job) => job.conclusion !== null && failingConclusions.has(job.conclusion));
  const targets = failedJobs.flatMap((job): Array<{ job: WorkflowJob; step: WorkflowStep | undefined }> => {
    const steps = job.steps.filter((step) => step.conclusion !== null && failingConclusions.has(step.conclusion));
    return steps.length > 0 ? steps.map((step) => ({ job, step })) : [{ job, step: undefined }];
  });
  const withLogs = new Set(failedJobs.slice(0, budget.maxFailedJobs).map((job) => job.id));
  const stepsWithLogs = targets.filter((target) => withLogs.has(target.job.id)).length;
  const bytesPerStep = stepsWithLogs === 0 ? 0 : Math.floor(budget.maxBytes / stepsWithLogs);

  const tails = new Map<WorkflowStep | WorkflowJob, LogTail | { unavailable: string }>();
  // One time budget for every log of this read, well under the server's deadline for a status read.
  const outOfTime = new AbortController();
  const timer = setTimeout(() => outOfTime.abort(), budget.maxReadMs);
  const stopReason = `not read within ${budget.maxReadMs / 1000} s`;
  try {
    for (const job of failedJobs) {
      if (!withLogs.has(job.id)) continue;
      const jobTargets = targets.filter((target) => target.job === job);
      const windows = jobTargets.map(({ step }) => ({
        startedAt: step?.started_at ?? job.started_at,
        completedAt: step?.completed_at ?? job.completed_at,
      }));
      const download = linkedAbort(signal, outOfTime.signal);
      try {
        const log = await api.downloadJobLog(ref, job.id, { signal: download.signal });
        const limits = { maxReadBytes: budget.maxReadBytes, stop: download.signal, stopReason };
        const jobTails = await readStepLogTails(
          log,
          windows,
          { maxLinesPerStep: budget.maxLinesPerStep, maxBytes: bytesPerStep },
          limits,
        );
        jobTargets.forEach(({ step }, index) => tails.set(step ?? job, jobTails[index]!));
      } catch (error) {
        if (signal.aborted) throw error;
        const note = outOfTime.signal.aborted ? `log unavailable: ${stopReason}` : unavailableNote(error, settings);
        if (note === undefined) throw error;
        for (const { step } of jobTargets) tails.set(step ?? job, { unavailable: note });
      } finally {
        // Ends a download left behind by a stopped read, and drops the listeners.
        download.abort();
      }
    }
  } finally {
    clearTimeout(timer);
  }

  return targets.map(({ job, step }) => {
    const tail = tails.get(step ?? job);
    const base = { job: job.name, step: step?.name ?? null, conclusion: step?.conclusion ?? job.conclusion };
    if (tail === undefined)
      return { ...base, logTail: "(log not fetched: over the failed-job budget)", logTruncated: true };
    if ("unavailable" in tail) return { ...base, logTail: `(${tail.unavailable})`, logTruncated: true };
    if (tail.stoppedEarly === undefined) return { ...base, logTail: tail.text, logTruncated: tail.truncated };
    const note = `(log cut short: ${tail.stoppedEarly}; the step's last lines may be missing)`;
    return { ...base, logTail: tail.text === "" ? note : `${tail.text}\n${note}`, logTruncated: true };
  });
}

/** The note for a log that cannot be had, or undefined when a later read may still get it. */
function unavailableNote(error: unknown, settings: CollectSettings): string | undefined {
  const status = error instanceof UpstreamError ? error.httpStatus : undefined;
  const answer = status === undefined ? "no answer" : `HTTP ${status}`;
  // Refused, gone or unreadable: asking again gives the same answer.
  if (error instanceof UpstreamError && !error.isRetryable) return `log unavailable (${answer})`;
  const finishedAt = Date.parse(settings.finishedAt);
  const finishedFor = Number.isNaN(finishedAt) ? Number.POSITIVE_INFINITY : settings.now() - finishedAt;
  if (finishedFor < logRetryWindowMs) return undefined;
  return `log unavailable (${answer}), still failing ${logRetryWindowMs / 60_000} min after the run finished`;
}

/** An abort controller that also fires when any of `parents` does. */
function linkedAbort(...parents: AbortSignal[]): AbortController {
  const controller = new AbortController();
  const abort = () => controller.abort();
  for (const parent of parents) {
    if (parent.aborted) controller.abort();
    else parent.addEventListener("abort", abort, { once: true });
  }
  controller.signal.addEventListener(
    "abort",
    () => parents.forEach((parent) => parent.removeEventListener("abort", abort)),
    { once: true },
  );
  return controller;
}
