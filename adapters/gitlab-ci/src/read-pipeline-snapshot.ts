import { UpstreamError, type AdapterContext, type JobSnapshot } from "@jobtasks/core";
import { buildPipelineResult, failedJobsOf } from "./build-pipeline-result.js";
import type { GitlabCiApi } from "./gitlab-ci-api.js";
import type { Pipeline } from "./gitlab-response-schemas.js";
import { mapGitlabCiStatus } from "./map-gitlab-ci-status.js";
import { buildInputRequests } from "./pipeline-input-requests.js";
import type { PipelineRef } from "./pipeline-ref.js";
import { tailJobTraces, type LogSettings } from "./tail-job-trace.js";

export interface SnapshotDependencies {
  api: GitlabCiApi;
  settings: { logs: LogSettings; pollIntervalMs: number };
}

/** One read of a pipeline, in the extension's terms. */
export async function readPipelineSnapshot(
  dependencies: SnapshotDependencies,
  ref: PipelineRef,
  context: AdapterContext,
): Promise<JobSnapshot> {
  const { api, settings } = dependencies;
  const signal = context.signal;
  const pipeline = await api.getPipeline(ref.project, ref.pipelineId, { signal });
  const phase = mapGitlabCiStatus(pipeline.status);
  const common = {
    rawStatus: pipeline.status,
    ...(pipeline.updated_at ? { updatedAt: pipeline.updated_at } : {}),
  };
  const working = (message: string): JobSnapshot => ({
    status: "working",
    ...common,
    message,
    pollIntervalMs: api.rateLimit.suggestPollIntervalMs(settings.pollIntervalMs),
  });
  if (phase.phase === "working") return working(phase.message);

  // Every other phase reads the jobs. GitLab retries in place: until a job newer than the ones the pipeline
  // had when the retry was asked for exists, its old answer is not the retry's.
  const jobs = await api.listJobs(ref.project, ref.pipelineId, { signal });
  if ("retriedAfterJobId" in ref && !jobs.some((job) => job.id > ref.retriedAfterJobId)) {
    return working(`retry requested: GitLab still reports the previous run (${pipeline.status})`);
  }
  switch (phase.phase) {
    case "manual": {
      const deployments = await readBlockedDeployments(api, ref, context);
      const inputRequests = buildInputRequests(jobs, deployments);
      if (Object.keys(inputRequests).length === 0) return working("manual: a job waits to be played outside this task");
      const count = Object.keys(inputRequests).length;
      return {
        status: "input_required",
        ...common,
        message: `manual: ${count} ${count === 1 ? "job waits" : "jobs wait"} for a decision`,
        inputRequests,
        pollIntervalMs: api.rateLimit.suggestPollIntervalMs(settings.pollIntervalMs),
      };
    }
    case "cancelled":
      return { status: "cancelled", ...common, message: "the pipeline was canceled", ...finishedAt(pipeline) };
    case "completed": {
      const failed = phase.isError ? failedJobsOf(jobs).map((job) => job.id) : [];
      const tails = failed.length > 0 ? await tailJobTraces(api, ref.project, failed, settings.logs, signal) : [];
      return {
        status: "completed",
        ...common,
        message: phase.message,
        ...finishedAt(pipeline),
        result: buildPipelineResult(pipeline, jobs, tails, phase.isError),
      };
    }
  }
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
