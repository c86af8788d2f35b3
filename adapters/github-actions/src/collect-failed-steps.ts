import { UpstreamError, redactSecrets } from "@jobtasks/core";
import type { GithubApi } from "./github-api.js";
import type { WorkflowJob, WorkflowStep } from "./github-response-schemas.js";
import type { FailedStep } from "./run-result-schema.js";
import type { RunRef } from "./run-ref.js";
import { stepLogLines, tailLines } from "./tail-step-log.js";

export interface LogBudget {
  maxLinesPerStep: number;
  maxBytes: number;
  maxFailedJobs: number;
}

const failingConclusions = new Set(["failure", "timed_out", "startup_failure", "action_required"]);

/**
 * The failed steps of an attempt with the end of their logs: one log download per failed job, at most
 * `maxFailedJobs` of them, the byte budget shared evenly by the steps. A log GitHub no longer has (or
 * will not give) is noted in place of the text rather than failing the result.
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

  const logs = new Map<number | string, string | { unavailable: string }>();
  for (const job of failedJobs) {
    if (!withLogs.has(job.id)) continue;
    try {
      logs.set(job.id, redactSecrets(await api.downloadJobLog(ref, job.id, { signal }), secrets));
    } catch (error) {
      if (signal.aborted) throw error;
      const status = error instanceof UpstreamError ? error.httpStatus : undefined;
      logs.set(job.id, { unavailable: status === undefined ? "log unavailable" : `log unavailable (HTTP ${status})` });
    }
  }

  return targets.map(({ job, step }) => {
    const log = logs.get(job.id);
    const base = { job: job.name, step: step?.name ?? null, conclusion: step?.conclusion ?? job.conclusion };
    if (log === undefined) return { ...base, logTail: "(log not fetched: over the failed-job budget)", logTruncated: true };
    if (typeof log !== "string") return { ...base, logTail: `(${log.unavailable})`, logTruncated: true };
    const lines = stepLogLines(log, {
      startedAt: step?.started_at ?? job.started_at,
      completedAt: step?.completed_at ?? job.completed_at,
    });
    const tail = tailLines(lines, budget.maxLinesPerStep, bytesPerStep);
    return { ...base, logTail: tail.text, logTruncated: tail.truncated };
  });
}
