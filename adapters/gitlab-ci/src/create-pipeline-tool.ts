import { OutcomeUnknownError, type JobTool, z } from "@jobtasks/core";
import { mayHaveActed } from "@jobtasks/core/adapter-utils";
import { newestJobId, pinnedRef, type PipelineRef } from "./pipeline-ref.js";
import { pipelineResultSchema } from "./pipeline-result-schema.js";
import { notCutShortByClient, projectInputSchema, type ToolDependencies } from "./tool-dependencies.js";

/** GitLab's rule for CI/CD variable keys. */
const variableKeyPattern = /^[A-Za-z0-9_]{1,255}$/;

/** `create_pipeline`: run a project's pipeline on a ref, with CI/CD variables when the options allow them. */
export function createCreatePipelineTool(dependencies: ToolDependencies, name: string): JobTool<PipelineRef> {
  const { api, config } = dependencies;
  const base = {
    project: projectInputSchema(config),
    ref: z
      .string()
      .min(1)
      .max(255)
      .default(config.defaultRef)
      .describe(`Branch or tag to run on (default ${config.defaultRef})`),
  };
  const variables = z
    .record(z.string().regex(variableKeyPattern, "letters, digits and _ only"), z.string().max(10_000))
    .optional()
    .describe('CI/CD variables for this pipeline, e.g. {"DEPLOY_TARGET": "staging"}');
  const inputSchema = config.allowVariables ? z.strictObject({ ...base, variables }) : z.strictObject(base);
  return {
    name,
    title: "Create a GitLab pipeline",
    description: `Runs a new GitLab CI pipeline of an allowed project on a branch or tag${config.allowVariables ? ", with optional CI/CD variables" : ""}, and follows it to the end. The result names the failed jobs with the end of their traces, and lists the artifacts.`,
    inputSchema,
    outputSchema: pipelineResultSchema,
    async doStart(input: { project: string; ref: string; variables?: Record<string, string> }, context) {
      // Nothing is sent for a client that has left already; once sent, the POST outlives it.
      context.signal.throwIfAborted();
      const pipeline = await api
        .createPipeline(
          input.project,
          {
            ref: input.ref,
            ...(input.variables
              ? {
                  variables: Object.entries(input.variables).map(([key, value]) => ({
                    key,
                    value,
                    variable_type: "env_var" as const,
                  })),
                }
              : {}),
          },
          { signal: notCutShortByClient },
        )
        .catch((error: unknown) => {
          throw error instanceof OutcomeUnknownError ? pipelineMayExist(input, error) : error;
        });
      const ref = { project: input.project, pipelineId: pipeline.id };
      // GitLab creates a pipeline's jobs with it: pinning them keeps a later retry's end out of this task.
      // The pipeline exists now, so a failed read only leaves the ref unpinned.
      const jobs = await api.listJobs(input.project, pipeline.id, { signal: notCutShortByClient }).catch(() => []);
      return { ref: pinnedRef(ref, newestJobId(jobs)) };
    },
  };
}

/**
 * GitLab's pipeline creation takes no idempotency key, and a pipeline carries no mark of the call that
 * made it which its list can be filtered by (a marking CI/CD variable needs a right that projects often
 * withhold): the project's newest pipelines on the ref may include another caller's, so the adapter does
 * not guess which one is this call's. The agent is told where to look instead. The server ends the message
 * with a period.
 */
function pipelineMayExist(input: { project: string; ref: string }, error: OutcomeUnknownError): OutcomeUnknownError {
  return mayHaveActed(
    `Creating a pipeline on ${input.ref} got no usable answer (${error.message}): it may have been created anyway, ` +
      `and GitLab offers no way to tell it apart from another pipeline on that ref. Look for it first ` +
      `(watch_pipeline with project ${input.project} and ref ${input.ref} follows the newest) and create another only if none started`,
    { httpStatus: error.httpStatus, cause: error },
  );
}
