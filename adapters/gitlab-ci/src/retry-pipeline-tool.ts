import { InvalidToolInputError, OutcomeUnknownError, type AdapterContext, type JobTool, z } from "@jobtasks/core";
import type { GitlabCiApi } from "./gitlab-ci-api.js";
import { mayHaveActed } from "@jobtasks/core/adapter-utils";
import { newestJobId, type PipelineRef } from "./pipeline-ref.js";
import { pipelineResultSchema } from "./pipeline-result-schema.js";
import {
  notCutShortByClient,
  pipelineNotFoundAsInvalidInput,
  projectInputSchema,
  type ToolDependencies,
} from "./tool-dependencies.js";

/** Only these can be retried: GitLab retries a pipeline's failed and canceled jobs, nothing else. */
const retryableStatuses = new Set(["failed", "canceled"]);

/** `retry_pipeline`: retry a failed or canceled pipeline's jobs and follow the pipeline again. */
export function createRetryPipelineTool(dependencies: ToolDependencies, name: string): JobTool<PipelineRef> {
  const { api, config } = dependencies;
  return {
    name,
    title: "Retry a GitLab pipeline",
    description:
      "Retries the failed and canceled jobs of a finished GitLab CI pipeline, and follows the pipeline to its new end.",
    inputSchema: z.strictObject({
      project: projectInputSchema(config),
      pipelineId: z.number().int().positive().describe("The failed or canceled pipeline's id"),
    }),
    outputSchema: pipelineResultSchema,
    async doStart(input: { project: string; pipelineId: number }, context) {
      // The reads change nothing: the client's signal may cut them short.
      const signal = context.signal;
      const pipeline = await api
        .getPipeline(input.project, input.pipelineId, { signal, notFound: "refused" })
        .catch(pipelineNotFoundAsInvalidInput);
      if (!retryableStatuses.has(pipeline.status)) {
        throw new InvalidToolInputError(
          "pipelineId",
          `the pipeline is ${pipeline.status}; only failed or canceled pipelines can be retried`,
        );
      }
      // The retry's jobs get ids above every current one: that watermark tells the retry's end from the old one.
      const jobs = await api.listJobs(input.project, input.pipelineId, { signal });
      const retriedAfterJobId = newestJobId(jobs);
      // Nothing is sent for a client that has left already; once sent, the POST outlives it.
      signal.throwIfAborted();
      const ref = { project: input.project, pipelineId: input.pipelineId, retriedAfterJobId };
      let retriedJobs: Array<{ id: number }>;
      try {
        await api.retryPipeline(input.project, input.pipelineId, { signal: notCutShortByClient });
        retriedJobs = await api
          .listJobs(input.project, input.pipelineId, { signal: notCutShortByClient })
          .catch(() => []);
      } catch (error) {
        if (!(error instanceof OutcomeUnknownError)) throw error;
        retriedJobs = await findLostRetry(api, ref, error, context);
      }
      // GitLab creates the retry's jobs while answering it: their newest id bounds this task's run, so a
      // later retry of the same pipeline is not this task's. Without them shown yet, the ref stays unbounded.
      const newest = newestJobId(retriedJobs);
      return { ref: newest > retriedAfterJobId ? { ...ref, jobsUpTo: newest } : ref };
    },
  };
}

/**
 * The retry's answer was lost. GitLab retries in place, so the pipeline is known: a job newer than the
 * watermark is the retry's (it is the same lookup the task's status read makes), and the retry is then
 * followed as started. Without one the retry may still be under way on GitLab's side, which nothing here
 * can tell from a retry that never happened.
 */
async function findLostRetry(
  api: GitlabCiApi,
  ref: { project: string; pipelineId: number; retriedAfterJobId: number },
  lost: OutcomeUnknownError,
  context: AdapterContext,
): Promise<Array<{ id: number }>> {
  const jobs = await api
    .listJobs(ref.project, ref.pipelineId, { signal: notCutShortByClient })
    .catch(() => [] as Array<{ id: number }>);
  if (jobs.some((job) => job.id > ref.retriedAfterJobId)) {
    context.logger.info({ pipelineId: ref.pipelineId }, "found the retried jobs of a retry whose answer was lost");
    return jobs;
  }
  // The server ends the message with a period.
  throw mayHaveActed(
    `Retrying pipeline ${ref.pipelineId} got no usable answer (${lost.message}), and it shows no retried job yet: ` +
      `the retry may have happened anyway. Look at the pipeline first (watch_pipeline with pipelineId ${ref.pipelineId}) ` +
      "and retry it again only if its failed jobs were not retried",
    { httpStatus: lost.httpStatus, cause: lost },
  );
}
