import type { JobTool } from "@jobtasks/core";
import type { ResolvedGenericSubmit } from "./aws-batch-options.js";
import { batchJobResultSchema } from "./batch-job-result.js";
import type { BatchJobRef } from "./batch-job-ref.js";
import { startSubmission } from "./start-submission.js";
import type { SubmitDependencies } from "./submit-batch-job.js";
import { genericSubmitInputSchema, type SubmitInput } from "./submit-input-schemas.js";

/** Submit any allow-listed job definition to any allow-listed queue. The schema enforces both lists. */
export function createGenericSubmitTool(
  options: ResolvedGenericSubmit,
  dependencies: SubmitDependencies,
): JobTool<BatchJobRef, SubmitInput> {
  return {
    name: options.tool,
    description:
      options.description ??
      `Submit an AWS Batch job (queues: ${options.allowedQueues.join(", ")}; definitions: ${options.allowedDefinitions.join(", ")}) and follow it as a task.`,
    inputSchema: genericSubmitInputSchema(options),
    outputSchema: batchJobResultSchema,
    doStart: (input, context) =>
      startSubmission(
        {
          jobQueue: input.jobQueue as string,
          jobDefinition: input.jobDefinition as string,
          jobNamePrefix: "jobtasks",
          tags: options.tags,
        },
        input,
        dependencies,
        context,
      ),
  };
}
