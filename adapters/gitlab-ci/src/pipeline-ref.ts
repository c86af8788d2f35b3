import { z } from "@jobtasks/core";

/**
 * What a task id seals: the project (as configured), the pipeline, and for a retry the highest job id the
 * pipeline had before it, because GitLab retries in place: until a job newer than that exists, the
 * pipeline's old terminal status is not the retry's answer.
 */
// Written out rather than inferred: the core takes refs as JSON values, which an optional property is not.
export type PipelineRef =
  | { project: string; pipelineId: number }
  | { project: string; pipelineId: number; retriedAfterJobId: number };

const pipeline = { project: z.string().min(1), pipelineId: z.number().int().positive() };

/**
 * The adapter's `refSchema`: the server checks every ref it opens from a task id against it, and answers a
 * misfit as an unknown task, so the do* methods only see refs of these two shapes (every shape this adapter
 * has sealed). A retry's ref is tried first, as the plain one would refuse its extra key.
 */
export const pipelineRefSchema: z.ZodType<PipelineRef> = z.union([
  z.strictObject({ ...pipeline, retriedAfterJobId: z.number().int().nonnegative() }),
  z.strictObject(pipeline),
]);
