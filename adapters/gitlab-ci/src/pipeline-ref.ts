import { z } from "@jobtasks/core";

/**
 * What a task id seals: the project (as configured), the pipeline, and the run of it the task follows.
 * GitLab retries a pipeline in place (same id, new job ids), so a run is told apart by job ids:
 * - `retriedAfterJobId` (a retry's task): the highest job id the pipeline had before the retry; until a
 *   newer job exists, the pipeline's old terminal status is not the retry's answer.
 * - `jobsUpTo`: the highest job id of the run when the task started; a job newer than it belongs to a
 *   later retry, and the task then answers from its own run's jobs instead of the pipeline's new status.
 * Refs sealed without `jobsUpTo` follow the pipeline whatever runs it shows.
 */
// Written out rather than inferred: the core takes refs as JSON values, which an optional property is not.
export type PipelineRef =
  | { project: string; pipelineId: number }
  | { project: string; pipelineId: number; retriedAfterJobId: number }
  | { project: string; pipelineId: number; jobsUpTo: number }
  | { project: string; pipelineId: number; retriedAfterJobId: number; jobsUpTo: number };

const pipeline = { project: z.string().min(1), pipelineId: z.number().int().positive() };
const retriedAfterJobId = z.number().int().nonnegative();
const jobsUpTo = z.number().int().positive();

/**
 * The adapter's `refSchema`: the server checks every ref it opens from a task id against it, and answers a
 * misfit as an unknown task, so the do* methods only see refs of these shapes (every shape this adapter has
 * sealed). The shapes with more keys are tried first, as the smaller ones refuse extra keys.
 */
export const pipelineRefSchema: z.ZodType<PipelineRef> = z.union([
  z.strictObject({ ...pipeline, retriedAfterJobId, jobsUpTo }),
  z.strictObject({ ...pipeline, retriedAfterJobId }),
  z.strictObject({ ...pipeline, jobsUpTo }),
  z.strictObject(pipeline),
]);

/** The ref of a run whose newest job id is `newestJobId`: without a job seen, the plain ref. */
export function pinnedRef<Ref extends PipelineRef>(ref: Ref, newestJobId: number): Ref | (Ref & { jobsUpTo: number }) {
  return newestJobId > 0 ? { ...ref, jobsUpTo: newestJobId } : ref;
}

/** The highest job id in a job list, 0 for none. */
export function newestJobId(jobs: ReadonlyArray<{ id: number }>): number {
  return Math.max(0, ...jobs.map((job) => job.id));
}
