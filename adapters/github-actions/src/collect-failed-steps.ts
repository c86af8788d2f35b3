import { UpstreamError } from "@jobtasks/core";
import type { GithubApi } from "./github-api.js";
import type { WorkflowJob, WorkflowStep } from "./github-response-schemas.js";
import type { FailedStep } from "./run-result-schema.js";
import type { RunRef } from "./run-ref.js";
import { readStepLogTails, type LogTail } from "./tail-step-log.js";

export interface LogBudget {
  maxLinesPerStep: number;
  maxBytes: number;
  maxFailedJobs: number;
}

const failingConclusions = new Set(["failure", "timed_out", "startup_failure", "action_required"]);

/**
 * The failed steps of an attempt with the end of their logs: one log download per failed job, at most
 * `maxFailedJobs` of them, the byte budget shared evenly by the steps. A log GitHub no longer has (404,
 * 410: expired or deleted) is noted in place of the text. Any other failure (a 5xx, a rate limit, a broken
 * connection) is thrown: the result would be kept for good, so it must not lose the log to a passing
 * fault; the snapshot stays working and the next read tries again.
 */
export async function collectFailedSteps(
  api: GithubApi,
  ref: RunRef,
  jobs: ReadonlyArray<WorkflowJob>,
  budget: LogBudget,
  secrets: ReadonlyArray<string | undefined>,
  signal: AbortSignal,
): Promise<FailedStep[]> {
  const failedJobs = jobs.filter((job) => job.conclusion !== null && failingConclusions.has(job.conclusion));
  const targets = failedJobs.flatMap((job): Array<{ job: WorkflowJob; step: WorkflowStep | undefined }> => {
    const steps = job.steps.filter((step) => step.conclusion !== null && failingConclusions.has(step.conclusion));
    return steps.length > 0 ? steps.map((step) => ({ job, step })) : [{ job, step: undefined }];
  });
  const withLogs = new Set(failedJobs.slice(0, budget.maxFailedJobs).map((job) => job.id));
  const stepsWithLogs = targets.filter((target) => withLogs.has(target.job.id)).length;
  const bytesPerStep = stepsWithLogs === 0 ? 0 : Math.floor(budget.maxBytes / stepsWithLogs);

  const tails = new Map<WorkflowStep | WorkflowJob, LogTail | { unavailable: string }>();
  for (const job of failedJobs) {
    if (!withLogs.has(job.id)) continue;
    const jobTargets = targets.filter((target) => target.job === job);
    const windows = jobTargets.map(({ step }) => ({
      startedAt: step?.started_at ?? job.started_at,
      completedAt: step?.completed_at ?? job.completed_at,
    }));
    try {
      const log = await api.downloadJobLog(ref, job.id, { signal });
      const jobTails = await readStepLogTails(log, windows, { maxLinesPerStep: budget.maxLinesPerStep, maxBytes: bytesPerStep }, secrets);
      jobTargets.forEach(({ step }, index) => tails.set(step ?? job, jobTails[index]!));
    } catch (error) {
      const status = error instanceof UpstreamError ? error.httpStatus : undefined;
      if (signal.aborted || (status !== 404 && status !== 410)) throw error;
      for (const { step } of jobTargets) tails.set(step ?? job, { unavailable: `log unavailable (HTTP ${status})` });
    }
  }

  return targets.map(({ job, step }) => {
    const tail = tails.get(step ?? job);
    const base = { job: job.name, step: step?.name ?? null, conclusion: step?.conclusion ?? job.conclusion };
    if (tail === undefined) return { ...base, logTail: "(log not fetched: over the failed-job budget)", logTruncated: true };
    if ("unavailable" in tail) return { ...base, logTail: `(${tail.unavailable})`, logTruncated: true };
    return { ...base, logTail: tail.text, logTruncated: tail.truncated };
  });
}
