import { UpstreamError, type AdapterContext, type JobSnapshot } from "@jobtasks/core";
import { buildRunResult } from "./build-run-result.js";
import { collectFailedSteps, type LogBudget } from "./collect-failed-steps.js";
import { describeRunningRun } from "./describe-running-run.js";
import type { GithubApi } from "./github-actions-api.js";
import { mapGithubActionsStatus, rawRunStatus } from "./map-github-actions-status.js";
import {
  countReviewsByEnvironment,
  describePendingDeployments,
  needsReviewHistory,
} from "./pending-deployment-requests.js";
import type { RateBudget } from "./rate-budget.js";
import type { RunRef } from "./run-ref.js";

export interface SnapshotSettings {
  logs: LogBudget;
  pollIntervalMs: number;
  forceCancelAfterMs: number | null;
}

export interface SnapshotDependencies {
  api: GithubApi;
  budget: RateBudget;
  settings: SnapshotSettings;
  now: () => number;
}

/**
 * One observation of the pinned attempt. Costs one conditional request for a queued run, two for a
 * running one (up to five while jobs show cancelled: their annotations say whether the run was cancelled), two
 * for a waiting one, three when this token may approve (the review history numbers the
 * approval keys), and for a finished one three plus one log download per failed job (then the server keeps
 * the terminal answer).
 */
export async function readRunSnapshot(
  dependencies: SnapshotDependencies,
  ref: RunRef,
  context: AdapterContext,
): Promise<JobSnapshot> {
  const { api } = dependencies;
  const signal = context.signal;
  const run = await api.getRunAttempt(ref, { signal, notFoundMeansGone: true });
  const phase = mapGithubActionsStatus(run.status, run.conclusion);
  const rawStatus = rawRunStatus(run.status, run.conclusion);
  const base = { rawStatus, updatedAt: run.updated_at };

  switch (phase.phase) {
    case "completed": {
      const [jobs, artifacts] = await Promise.all([
        api.listAttemptJobs(ref, { signal, notFoundMeansGone: true }),
        api.listArtifacts(ref, { signal }),
      ]);
      const failedSteps = phase.isError
        ? await collectFailedSteps(api, ref, jobs.jobs, {
            budget: dependencies.settings.logs,
            signal,
            finishedAt: run.updated_at,
            now: dependencies.now,
          })
        : [];
      return {
        ...base,
        status: "completed",
        message: `concluded ${run.conclusion}`,
        result: buildRunResult(ref, run, jobs.jobs, artifacts.artifacts, failedSteps, phase.isError),
      };
    }
    case "cancelled":
      return { ...base, status: "cancelled", message: "cancelled" };
    case "waiting": {
      // Reads beside the attempt, which was just read: a 404 or a refusal there does not mean the run is gone.
      const deploymentsRead = await unlessRefused(() => api.listPendingDeployments(ref, { signal }));
      if ("refused" in deploymentsRead) {
        const message = `waiting: the pending deployments could not be read (${deploymentsRead.refused})`;
        return withPollInterval(dependencies, 2, { ...base, status: "working", message });
      }
      let deployments = deploymentsRead.value;
      const withKeys = needsReviewHistory(deployments);
      let reviews = new Map<string, number>();
      let note = "";
      if (withKeys) {
        const history = await unlessRefused(() => api.listRunReviews(ref, { signal }));
        if ("value" in history) reviews = countReviewsByEnvironment(history.value);
        else {
          // Without the history no key can be numbered, and a key must never be issued twice: no form.
          deployments = deployments.map((deployment) => ({ ...deployment, current_user_can_approve: false }));
          note = ` (no approval form: the run's review history could not be read (${history.refused}))`;
        }
      }
      const waiting = describePendingDeployments(
        ref,
        run.name ?? "workflow",
        deployments,
        reviews,
        dependencies.now(),
        run.html_url,
      );
      const working = Object.keys(waiting.inputRequests).length === 0;
      return withPollInterval(dependencies, withKeys ? 3 : 2, {
        ...base,
        status: working ? "working" : "input_required",
        message: waiting.message + note,
        // Every question here is a deployment review: a person's decision, which the approval scope guards.
        ...(working ? {} : { inputRequests: waiting.inputRequests, approvalKeys: Object.keys(waiting.inputRequests) }),
      });
    }
    case "working":
      if (run.status !== "in_progress")
        return withPollInterval(dependencies, 1, { ...base, status: "working", message: phase.message });
      return withPollInterval(dependencies, 2, {
        ...base,
        status: "working",
        message: await describeRunningRun(dependencies, ref, run, context),
      });
  }
}

/** A read whose refusal (4xx that is no rate limit) is reported in the message rather than failing the task. */
async function unlessRefused<T>(read: () => Promise<T>): Promise<{ value: T } | { refused: string }> {
  try {
    return { value: await read() };
  } catch (error) {
    if (!(error instanceof UpstreamError) || error.isRetryable) throw error;
    return { refused: error.httpStatus === undefined ? "refused" : `HTTP ${error.httpStatus}` };
  }
}

export function withPollInterval(
  dependencies: Pick<SnapshotDependencies, "budget" | "settings" | "now">,
  requestsPerPoll: number,
  snapshot: JobSnapshot,
): JobSnapshot {
  const base = dependencies.settings.pollIntervalMs;
  const suggested = dependencies.budget.suggestPollIntervalMs(base, requestsPerPoll, dependencies.now());
  return suggested > base ? { ...snapshot, pollIntervalMs: suggested } : snapshot;
}
