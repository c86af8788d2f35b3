import { z } from "@jobtasks/core";
import type { JobTool } from "@jobtasks/core";
import { anchoredPattern, type ResolvedJobTemplate, type ResolvedTemplateParameter } from "./aws-batch-options.js";
import { batchJobResultSchema } from "./batch-job-result.js";
import type { BatchJobRef } from "./batch-job-ref.js";
import { startSubmission } from "./start-submission.js";
import type { SubmitDependencies } from "./submit-batch-job.js";
import { arraySizeSchema, commandSchema, environmentSchema, type SubmitInput } from "./submit-input-schemas.js";

function parameterSchema(name: string, parameter: ResolvedTemplateParameter): z.ZodType<string | undefined> {
  let schema: z.ZodType<string> = parameter.enum
    ? z.enum(parameter.enum as [string, ...string[]])
    : z.string().max(parameter.maxLength);
  if (parameter.pattern !== undefined) {
    schema = (schema as z.ZodString).regex(anchoredPattern(parameter.pattern), `must match ${parameter.pattern}`);
  }
  const notes = [parameter.description ?? `Batch parameter ${name}`];
  if (parameter.default !== undefined) notes.push(`default: ${parameter.default}`);
  const described = schema.describe(notes.join("; "));
  const required = parameter.required ?? parameter.default === undefined;
  return required ? described : described.optional();
}

/** The input schema of a template tool: its parameters, and overrides only where the template allows them. */
function templateInputSchema(template: ResolvedJobTemplate): z.ZodType<SubmitInput> {
  const shape: Record<string, z.ZodType> = {};
  const parameterEntries = Object.entries(template.parameters);
  if (parameterEntries.length > 0) {
    const parameters = z.strictObject(
      Object.fromEntries(parameterEntries.map(([name, parameter]) => [name, parameterSchema(name, parameter)])),
    );
    const anyRequired = parameterEntries.some(([, parameter]) => parameter.required ?? parameter.default === undefined);
    shape.parameters = anyRequired ? parameters : parameters.optional();
  }
  if (template.allowCommandOverride) shape.command = commandSchema.optional();
  if (template.allowedEnvironment.length > 0)
    shape.environment = environmentSchema(template.allowedEnvironment).optional();
  if (template.array) shape.arraySize = arraySizeSchema(template.array.maxSize).optional();
  if (template.resources?.maxVcpus !== undefined) {
    shape.vcpus = z.number().positive().max(template.resources.maxVcpus).describe("vCPUs for the container").optional();
  }
  if (template.resources?.maxMemoryMiB !== undefined) {
    shape.memoryMiB = z
      .number()
      .int()
      .positive()
      .max(template.resources.maxMemoryMiB)
      .describe("Memory in MiB")
      .optional();
  }
  return z.strictObject(shape) as unknown as z.ZodType<SubmitInput>;
}

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
