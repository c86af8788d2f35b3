import { z } from "@jobtasks/core";

// The parts of the submit tools' input schemas that both tools offer; each tool's file builds its own schema.

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

export const commandSchema = z
  .array(z.string().max(4096))
  .min(1)
  .max(256)
  .describe("Replaces the container command of the job definition, one argument per item");

export function environmentSchema(allowed: string[]) {
  const shape = Object.fromEntries(allowed.map((name) => [name, z.string().max(8192).optional()]));
  return z
    .strictObject(shape)
    .describe(`Environment variables to set in the container (allowed: ${allowed.join(", ")})`);
}

export function arraySizeSchema(maxSize: number) {
  return z
    .number()
    .int()
    .min(2)
    .max(maxSize)
    .describe(`Run an array job of this many children (2-${maxSize}); each child sees AWS_BATCH_JOB_ARRAY_INDEX`);
}
