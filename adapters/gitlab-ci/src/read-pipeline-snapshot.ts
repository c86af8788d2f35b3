import { UpstreamError, type AdapterContext, type JobSnapshot } from "@jobtasks/core";
import { buildPipelineResult, failedJobsOf } from "./build-pipeline-result.js";
import type { GitlabCiApi } from "./gitlab-ci-api.js";
import type { Pipeline } from "./gitlab-response-schemas.js";
import { describePipelineProgress } from "./describe-pipeline-progress.js";
import { mapGitlabCiStatus } from "./map-gitlab-ci-status.js";
import { buildInputRequests } from "./pipeline-input-requests.js";
import type { PipelineRef } from "./pipeline-ref.js";
import { latest, selectPipelineRun, type PipelineRun } from "./pipeline-run.js";
import { tailJobTraces, type LogSettings } from "./tail-job-trace.js";

export interface SnapshotDependencies {
  api: GitlabCiApi;
  settings: { logs: LogSettings; pollIntervalMs: number };
}

/**
 * One read of a pipeline, in the extension's terms: the pipeline and its jobs (the message names the job
 * running; the jobs tell which run of a retried pipeline is the task's), plus the blocked deployments when
 * it waits at a manual job, and the failed jobs' traces once it failed.
 */
export async function readPipelineSnapshot(
  dependencies: SnapshotDependencies,
  ref: PipelineRef,
  context: AdapterContext,
): Promise<JobSnapshot> {
  const { api, settings } = dependencies;
  const signal = context.signal;
  const pipeline = await api.getPipeline(ref.project, ref.pipelineId, { signal });
  const run = selectPipelineRun(ref, await api.listJobs(ref.project, ref.pipelineId, { signal }));
  const common = {
    rawStatus: pipeline.status,
    ...(pipeline.updated_at ? { updatedAt: pipeline.updated_at } : {}),
  };
  const pollIntervalMs = api.rateLimit.suggestPollIntervalMs(settings.pollIntervalMs);
  const working = (message: string): JobSnapshot => ({ status: "working", ...common, message, pollIntervalMs });
  if (run.kind === "retry-pending")
    return working(`retry requested: GitLab still reports the previous run (${pipeline.status})`);
  if (run.kind === "ended-before-retry") return answerEndedRun(dependencies, ref, pipeline, run, signal);

  const phase = mapGitlabCiStatus(pipeline.status);
  switch (phase.phase) {
    case "working":
      return working(describePipelineProgress(pipeline.status, phase.message, run.jobs));
    case "manual": {
      const deployments = await readBlockedDeployments(api, ref, context);
      const inputRequests = buildInputRequests(run.jobs, deployments, pipeline.web_url);
      if (Object.keys(inputRequests).length === 0) return working("manual: a job waits to be played outside this task");
      const count = Object.keys(inputRequests).length;
      return {
        status: "input_required",
        ...common,
        message: `manual: ${count} ${count === 1 ? "job waits" : "jobs wait"} for a decision`,
        inputRequests,
        // Playing a manual job and approving a deployment are both a person's decision: approvals, all of them.
        approvalKeys: Object.keys(inputRequests),
        pollIntervalMs,
      };
    }
    case "cancelled":
      return { status: "cancelled", ...common, message: "the pipeline was canceled", ...finishedAt(pipeline) };
    case "completed": {
      const failed = phase.isError ? failedJobsOf(run.jobs).map((job) => job.id) : [];
      const tails = failed.length > 0 ? await tailJobTraces(api, ref.project, failed, settings.logs, signal) : [];
      return {
        status: "completed",
        ...common,
        message: phase.message,
        ...finishedAt(pipeline),
        result: buildPipelineResult(pipeline, run.jobs, tails, phase.isError),
      };
    }
  }
}

/**
 * The answer of a task whose run ended before a later retry: the run's own outcome, from its jobs, since
 * the pipeline's status now belongs to the retry. Said so in the message and the result, so that the agent
 * knows why GitLab's page shows something else, and where the retry can be followed.
 */
async function answerEndedRun(
  dependencies: SnapshotDependencies,
  ref: PipelineRef,
  pipeline: Pipeline,
  run: Extract<PipelineRun, { kind: "ended-before-retry" }>,
  signal: AbortSignal,
): Promise<JobSnapshot> {
  const note =
    `the pipeline has been retried since, and GitLab now shows a later run (${pipeline.status}); ` +
    `watch_pipeline with pipelineId ${pipeline.id} follows that run`;
  const endedAt = latest(run.jobs.map((job) => job.finished_at));
  const common = { rawStatus: run.outcome, ...(endedAt ? { updatedAt: endedAt } : {}) };
  if (run.outcome === "canceled")
    return { status: "cancelled", ...common, message: `the pipeline was canceled (${note})` };
  const isError = run.outcome === "failed";
  const failed = isError ? failedJobsOf(run.jobs).map((job) => job.id) : [];
  const { api, settings } = dependencies;
  const tails = failed.length > 0 ? await tailJobTraces(api, ref.project, failed, settings.logs, signal) : [];
  // The run's own end: GitLab's duration and finish time are the later run's now.
  const ended = { ...pipeline, status: run.outcome, finished_at: endedAt ?? null, duration: null };
  return {
    status: "completed",
    ...common,
    message: `${isError ? "the pipeline failed" : "the pipeline succeeded"} (${note})`,
    result: buildPipelineResult(ended, run.jobs, tails, isError, note),
  };
}

/** A finished pipeline's time of change is when it finished: later edits (a note, an artifact expiring) do not move it. */
function finishedAt(pipeline: Pipeline): { updatedAt?: string } {
  return pipeline.finished_at ? { updatedAt: pipeline.finished_at } : {};
}

/**
 * Deployments waiting for approval, or none when the token may not list deployments (a role without
 * access to them): the manual jobs are still worth asking about, and the pipeline is still readable.
 */
async function readBlockedDeployments(api: GitlabCiApi, ref: PipelineRef, context: AdapterContext) {
  try {
    return await api.blockedDeployments(ref.project, ref.pipelineId, { signal: context.signal });
  } catch (error) {
    if (!(error instanceof UpstreamError) || error.isRetryable) throw error;
    context.logger.warn(
      { pipelineId: ref.pipelineId, httpStatus: error.httpStatus },
      "cannot list the pipeline's deployments; asking about its manual jobs only",
    );
    return [];
  }
}
