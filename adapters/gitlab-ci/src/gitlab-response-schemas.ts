import { z } from "@jobtasks/core";

/** Minimal shapes of GitLab REST API v4 answers: only the fields this adapter reads. */

export const pipelineSchema = z.object({
  id: z.number().int(),
  /** The pipeline's number within its project, as GitLab's pages show it ("#412"). */
  iid: z.number().int().nullish(),
  status: z.string(),
  ref: z.string().nullish(),
  sha: z.string().nullish(),
  web_url: z.string().nullish(),
  updated_at: z.string().nullish(),
  finished_at: z.string().nullish(),
  duration: z.number().nullish(),
});
export type Pipeline = z.infer<typeof pipelineSchema>;

export const pipelineListSchema = z.array(pipelineSchema.pick({ id: true, status: true }));

const artifactSchema = z.object({
  file_type: z.string(),
  filename: z.string().nullish(),
  size: z.number().nullish(),
});

export const jobSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  stage: z.string(),
  status: z.string(),
  allow_failure: z.boolean().nullish(),
  failure_reason: z.string().nullish(),
  created_at: z.string().nullish(),
  started_at: z.string().nullish(),
  finished_at: z.string().nullish(),
  artifacts: z.array(artifactSchema).nullish(),
});
export type PipelineJob = z.infer<typeof jobSchema>;
export const jobListSchema = z.array(jobSchema);

export const deploymentSchema = z.object({
  id: z.number().int(),
  status: z.string(),
  environment: z.object({ name: z.string() }).nullish(),
  deployable: z
    .object({
      id: z.number().int(),
      name: z.string().nullish(),
      pipeline: z.object({ id: z.number().int() }).nullish(),
    })
    .nullish(),
  approvals: z.array(z.object({ status: z.string().nullish() })).nullish(),
  pending_approval_count: z.number().int().nullish(),
});
export type Deployment = z.infer<typeof deploymentSchema>;
export const deploymentListSchema = z.array(deploymentSchema);
