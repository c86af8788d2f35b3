import { JobNotFoundError } from "@jobtasks/core";
import { z } from "zod";

/**
 * What a task id seals: the project (as configured), the pipeline, and for a retry the highest job id the
 * pipeline had before it, because GitLab retries in place: until a job newer than that exists, the
 * pipeline's old terminal status is not the retry's answer.
 */
export const pipelineRefSchema = z.strictObject({
  project: z.string().min(1),
  pipelineId: z.number().int().positive(),
  retriedAfterJobId: z.number().int().nonnegative().optional(),
});

// Written out rather than inferred: the core takes refs as JSON values, which an optional property is not.
export type PipelineRef =
  | { project: string; pipelineId: number }
  | { project: string; pipelineId: number; retriedAfterJobId: number };

export function checkPipelineRef(ref: unknown): PipelineRef {
  const parsed = pipelineRefSchema.safeParse(ref);
  if (!parsed.success) throw new JobNotFoundError("the task does not name a GitLab pipeline");
  const { project, pipelineId, retriedAfterJobId } = parsed.data;
  return retriedAfterJobId === undefined ? { project, pipelineId } : { project, pipelineId, retriedAfterJobId };
}
