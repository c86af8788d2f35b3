import { z } from "@jobtasks/core";
import { githubIdSchema } from "./run-ref.js";

/**
 * Minimal shapes of the GitHub answers this adapter reads: only the fields it uses, so that GitHub adding
 * or reshaping anything else cannot break it. Status and conclusion stay plain strings (open sets).
 */

const nullableString = z
  .string()
  .nullable()
  .optional()
  .transform((value) => value ?? null);

export const workflowRunSchema = z.object({
  id: githubIdSchema,
  name: nullableString,
  display_title: nullableString,
  path: nullableString,
  status: nullableString,
  conclusion: nullableString,
  run_attempt: z.number().int().positive().optional().default(1),
  html_url: z.string(),
  head_branch: nullableString,
  head_sha: z.string(),
  event: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  run_started_at: nullableString,
});
export type WorkflowRun = z.output<typeof workflowRunSchema>;

export const workflowRunListSchema = z.object({
  total_count: z.number(),
  workflow_runs: z.array(workflowRunSchema),
});

const stepSchema = z.object({
  name: z.string(),
  number: z.number().int(),
  status: z.string(),
  conclusion: nullableString,
  started_at: nullableString,
  completed_at: nullableString,
});
export type WorkflowStep = z.output<typeof stepSchema>;

export const jobSchema = z.object({
  id: githubIdSchema,
  name: z.string(),
  status: z.string(),
  conclusion: nullableString,
  started_at: nullableString,
  completed_at: nullableString,
  html_url: nullableString,
  steps: z.array(stepSchema).optional().default([]),
});
export type WorkflowJob = z.output<typeof jobSchema>;

export const jobListSchema = z.object({
  total_count: z.number(),
  jobs: z.array(jobSchema),
});

const artifactSchema = z.object({
  id: githubIdSchema,
  name: z.string(),
  size_in_bytes: z.number(),
  archive_download_url: z.string(),
  created_at: nullableString,
  expires_at: nullableString,
});
export type Artifact = z.output<typeof artifactSchema>;

export const artifactListSchema = z.object({
  total_count: z.number(),
  artifacts: z.array(artifactSchema),
});

const reviewerSchema = z.object({
  type: z.string(),
  reviewer: z
    .object({ login: z.string().optional(), name: z.string().optional(), slug: z.string().optional() })
    .nullable()
    .optional(),
});
export type DeploymentReviewer = z.output<typeof reviewerSchema>;

export const pendingDeploymentListSchema = z.array(
  z.object({
    environment: z.object({ id: githubIdSchema, name: z.string().optional().default("unnamed environment") }),
    wait_timer: z.number().optional().default(0),
    wait_timer_started_at: nullableString,
    current_user_can_approve: z.boolean(),
    reviewers: z.array(reviewerSchema).optional().default([]),
  }),
);
export type PendingDeployment = z.output<typeof pendingDeploymentListSchema>[number];

/**
 * The review history of a run (GET .../runs/{run_id}/approvals): one entry per review, naming the
 * environments it covered. Only what numbers the approval keys is read.
 */
export const runReviewListSchema = z.array(
  z.object({
    state: z.string(),
    environments: z
      .array(z.object({ id: githubIdSchema }))
      .optional()
      .default([]),
  }),
);
export type RunReview = z.output<typeof runReviewListSchema>[number];

/** Annotations of a job's check run: GitHub writes why it cancelled a job there. */
export const checkRunAnnotationListSchema = z.array(z.object({ message: nullableString }));

export const dispatchDetailsSchema = z.object({
  workflow_run_id: githubIdSchema,
  html_url: z.string().optional(),
});
