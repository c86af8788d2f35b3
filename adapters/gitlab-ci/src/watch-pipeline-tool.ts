import { InvalidToolInputError, type JobTool, z } from "@jobtasks/core";
import { newestJobId, pinnedRef, type PipelineRef } from "./pipeline-ref.js";
import { pipelineResultSchema } from "./pipeline-result-schema.js";
import { pipelineNotFoundAsInvalidInput, projectInputSchema, type ToolDependencies } from "./tool-dependencies.js";

/** `watch_pipeline`: follow an existing pipeline, named by id, or the latest one of a commit or a ref. */
export function createWatchPipelineTool(dependencies: ToolDependencies, name: string): JobTool<PipelineRef> {
  const { api, config } = dependencies;
  const inputSchema = z
    .strictObject({
      project: projectInputSchema(config),
      pipelineId: z.number().int().positive().optional().describe("The pipeline's id"),
      sha: z
        .string()
        .regex(/^[0-9a-f]{7,64}$/, "a commit sha (hex)")
        .optional()
        .describe("Follow the latest pipeline of this commit"),
      ref: z.string().min(1).max(255).optional().describe("Follow the latest pipeline of this branch or tag"),
    })
    .superRefine((input, context) => {
      const byId = input.pipelineId !== undefined;
      const byLookup = input.sha !== undefined || input.ref !== undefined;
      if (byId === byLookup) {
        context.addIssue({
          code: "custom",
          path: ["pipelineId"],
          message: "give either pipelineId, or sha and/or ref",
        });
      }
    });
  return {
    name,
    title: "Watch a GitLab pipeline",
    description:
      "Follows an existing GitLab CI pipeline to the end: by its id, or the latest pipeline of a commit (sha) or a branch or tag (ref). The result names the failed jobs with the end of their traces, and lists the artifacts.",
    inputSchema,
    outputSchema: pipelineResultSchema,
    async doStart(input: { project: string; pipelineId?: number; sha?: string; ref?: string }, context) {
      if (input.pipelineId !== undefined) {
        const pipeline = await api
          .getPipeline(input.project, input.pipelineId, { signal: context.signal, notFound: "refused" })
          .catch(pipelineNotFoundAsInvalidInput);
        return { ref: await pinCurrentRun(api, { project: input.project, pipelineId: pipeline.id }, context.signal) };
      }
      const filter = { ...(input.sha ? { sha: input.sha } : {}), ...(input.ref ? { ref: input.ref } : {}) };
      const latest = await api.latestPipeline(input.project, filter, { signal: context.signal });
      if (!latest)
        throw new InvalidToolInputError(
          input.sha ? "sha" : "ref",
          "GitLab has no pipeline for it (yet) in this project",
        );
      return { ref: await pinCurrentRun(api, { project: input.project, pipelineId: latest.id }, context.signal) };
    },
  };
}

/**
 * The ref of the run the pipeline shows now: a later retry (same pipeline id, newer job ids) is then not
 * this task's, and a watch started after a retry follows the retry.
 */
async function pinCurrentRun(
  api: ToolDependencies["api"],
  ref: { project: string; pipelineId: number },
  signal: AbortSignal,
): Promise<PipelineRef> {
  const jobs = await api.listJobs(ref.project, ref.pipelineId, { signal });
  return pinnedRef(ref, newestJobId(jobs));
}
