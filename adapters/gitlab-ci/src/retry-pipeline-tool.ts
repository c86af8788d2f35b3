import { InvalidToolInputError, type JobTool } from "@jobtasks/core";
import { z } from "zod";
import type { PipelineRef } from "./pipeline-ref.js";
import { pipelineResultSchema } from "./pipeline-result-schema.js";
import { pipelineNotFoundAsInvalidInput, projectInputSchema, type ToolDependencies } from "./tool-dependencies.js";

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
      const retriedAfterJobId = Math.max(0, ...jobs.map((job) => job.id));
      await api.retryPipeline(input.project, input.pipelineId, { signal });
      return { ref: { project: input.project, pipelineId: input.pipelineId, retriedAfterJobId } };
    },
  };
}
