import { z } from "zod";
import {
  anchoredPattern,
  type ResolvedGenericSubmit,
  type ResolvedJobTemplate,
  type ResolvedTemplateParameter,
} from "./aws-batch-options.js";

/** What an agent may send to a submit tool; each tool's schema allows only the parts its config permits. */
export interface SubmitInput {
  jobQueue?: string;
  jobDefinition?: string;
  jobName?: string;
  parameters?: Record<string, string>;
  command?: string[];
  environment?: Record<string, string>;
  arraySize?: number;
  vcpus?: number;
  memoryMiB?: number;
}

const commandSchema = z
  .array(z.string().max(4096))
  .min(1)
  .max(256)
  .describe("Replaces the container command of the job definition, one argument per item");

function environmentSchema(allowed: string[]) {
  const shape = Object.fromEntries(allowed.map((name) => [name, z.string().max(8192).optional()]));
  return z.strictObject(shape).describe(`Environment variables to set in the container (allowed: ${allowed.join(", ")})`);
}

function arraySizeSchema(maxSize: number) {
  return z
    .number()
    .int()
    .min(2)
    .max(maxSize)
    .describe(`Run an array job of this many children (2-${maxSize}); each child sees AWS_BATCH_JOB_ARRAY_INDEX`);
}

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
export function templateInputSchema(template: ResolvedJobTemplate): z.ZodType<SubmitInput> {
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
  if (template.allowedEnvironment.length > 0) shape.environment = environmentSchema(template.allowedEnvironment).optional();
  if (template.array) shape.arraySize = arraySizeSchema(template.array.maxSize).optional();
  if (template.resources?.maxVcpus !== undefined) {
    shape.vcpus = z.number().positive().max(template.resources.maxVcpus).describe("vCPUs for the container").optional();
  }
  if (template.resources?.maxMemoryMiB !== undefined) {
    shape.memoryMiB = z.number().int().positive().max(template.resources.maxMemoryMiB).describe("Memory in MiB").optional();
  }
  return z.strictObject(shape) as unknown as z.ZodType<SubmitInput>;
}

/** The input schema of the generic submit tool: a choice among allow-listed queues and job definitions. */
export function genericSubmitInputSchema(options: ResolvedGenericSubmit): z.ZodType<SubmitInput> {
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
  if (options.allowedEnvironment.length > 0) shape.environment = environmentSchema(options.allowedEnvironment).optional();
  if (options.maxArraySize !== undefined) shape.arraySize = arraySizeSchema(options.maxArraySize).optional();
  return z.strictObject(shape) as unknown as z.ZodType<SubmitInput>;
}
