import { z } from "@jobtasks/core";
import type { JobTool } from "@jobtasks/core";
import type { ResolvedGenericSubmit } from "./aws-batch-options.js";
import { batchJobResultSchema } from "./batch-job-result.js";
import type { BatchJobRef } from "./batch-job-ref.js";
import { startSubmission } from "./start-submission.js";
import type { SubmitDependencies } from "./submit-batch-job.js";
import { arraySizeSchema, commandSchema, environmentSchema, type SubmitInput } from "./submit-input-schemas.js";

/** The input schema of the generic submit tool: a choice among allow-listed queues and job definitions. */
function genericSubmitInputSchema(options: ResolvedGenericSubmit): z.ZodType<SubmitInput> {
  const shape: Record<string, z.ZodType> = {
    jobQueue: z.enum(options.allowedQueues as [string, ...string[]]).describe("Job queue"),
    jobDefinition: z.enum(options.allowedDefinitions as [string, ...string[]]).describe("Job definition"),
    jobName: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/)
      .describe("Start of the job name; a unique suffix is appended")
      .optional(),
    parameters: z
      .record(z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/), z.string().max(4096))
      .refine((parameters) => Object.keys(parameters).length <= 100, "at most 100 parameters")
      .describe("Batch parameters, substituted for Ref::<name> in the job definition's command")
      .optional(),
  };
  if (options.allowCommandOverride) shape.command = commandSchema.optional();
  if (options.allowedEnvironment.length > 0)
    shape.environment = environmentSchema(options.allowedEnvironment).optional();
  if (options.maxArraySize !== undefined) shape.arraySize = arraySizeSchema(options.maxArraySize).optional();
  return z.strictObject(shape) as unknown as z.ZodType<SubmitInput>;
}

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
