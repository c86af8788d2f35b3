import type { JobTool } from "@jobtasks/core";
import type { ResolvedJobTemplate } from "./aws-batch-options.js";
import { batchJobResultSchema } from "./batch-job-result.js";
import type { BatchJobRef } from "./batch-job-ref.js";
import { startSubmission } from "./start-submission.js";
import type { SubmitDependencies } from "./submit-batch-job.js";
import { type SubmitInput, templateInputSchema } from "./submit-input-schemas.js";

/** A submit tool for one configured job template: fixed queue and definition, only allowed inputs. */
export function createTemplateSubmitTool(
  template: ResolvedJobTemplate,
  dependencies: SubmitDependencies,
): JobTool<BatchJobRef, SubmitInput> {
  const parameterDefaults = Object.fromEntries(
    Object.entries(template.parameters).flatMap(([name, parameter]) =>
      parameter.default !== undefined ? [[name, parameter.default]] : [],
    ),
  );
  const base = {
    jobQueue: template.jobQueue,
    jobDefinition: template.jobDefinition,
    jobNamePrefix: template.jobNamePrefix ?? template.tool,
    parameterDefaults,
    tags: template.tags,
    ...(template.retryAttempts !== undefined ? { retryAttempts: template.retryAttempts } : {}),
    ...(template.timeoutSeconds !== undefined ? { timeoutSeconds: template.timeoutSeconds } : {}),
    ...(template.shareIdentifier !== undefined ? { shareIdentifier: template.shareIdentifier } : {}),
  };
  return {
    name: template.tool,
    ...(template.title !== undefined ? { title: template.title } : {}),
    description: template.description,
    inputSchema: templateInputSchema(template),
    outputSchema: batchJobResultSchema,
    doStart: (input, context) => startSubmission(base, input, dependencies, context),
  };
}
