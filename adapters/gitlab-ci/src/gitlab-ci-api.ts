import { UpstreamError, type z } from "@jobtasks/core";
import type { GitlabHttpClient, GitlabRequest } from "./gitlab-http-client.js";
import { creationOutcomeUnknown } from "./lost-answer.js";
import {
  deploymentListSchema,
  jobListSchema,
  pipelineListSchema,
  pipelineSchema,
  type Deployment,
  type Pipeline,
  type PipelineJob,
} from "./gitlab-response-schemas.js";

/**
 * The GitLab REST API v4 endpoints this adapter uses, with their answers parsed. Projects are sent as
 * configured (a numeric id or a URL-encoded path), and every list asks for its largest page: a pipeline
 * with more than 100 jobs shows its first 100.
 */

export interface CallOptions {
  signal: AbortSignal;
}

const perPage = 100;

export function createGitlabCiApi(http: GitlabHttpClient) {
  const project = (id: string) => `/projects/${encodeURIComponent(id)}`;

  async function parsed<T>(schema: z.ZodType<T>, gitlabRequest: GitlabRequest, what: string): Promise<T> {
    const result = schema.safeParse(await http.json(gitlabRequest));
    // An answer of an unexpected shape is a proxy page or an API change: a read may pass, and says which
    // call; a creating call may have created all the same.
    if (!result.success && gitlabRequest.creates)
      throw creationOutcomeUnknown(`accepted ${what}, but answered in an unexpected shape`);
    if (!result.success)
      throw new UpstreamError(`GitLab answered ${what} in an unexpected shape`, { isRetryable: true });
    return result.data;
  }

  return {
    rateLimit: http.rateLimit,

    getPipeline(
      projectId: string,
      pipelineId: number,
      options: CallOptions & { notFound?: GitlabRequest["notFound"] },
    ): Promise<Pipeline> {
      return parsed(
        pipelineSchema,
        {
          method: "GET",
          path: `${project(projectId)}/pipelines/${pipelineId}`,
          signal: options.signal,
          notFound: options.notFound ?? "job-gone",
        },
        "a pipeline read",
      );
    },

    /** The newest pipeline for a commit or a ref (GitLab lists newest first), or undefined. */
    async latestPipeline(
      projectId: string,
      filter: { sha?: string; ref?: string },
      options: CallOptions,
    ): Promise<{ id: number } | undefined> {
      const pipelines = await parsed(
        pipelineListSchema,
        {
          method: "GET",
          path: `${project(projectId)}/pipelines`,
          query: { ...filter, order_by: "id", sort: "desc", per_page: 1 },
          signal: options.signal,
          notFound: "refused",
        },
        "a pipeline list",
      );
      return pipelines[0];
    },

    /**
     * A pipeline's jobs, newest first, including those a retry replaced (`include_retried`): a task that
     * follows an earlier run of a retried pipeline reads its run's jobs among them (pipeline-run.ts).
     */
    listJobs(
      projectId: string,
      pipelineId: number,
      options: CallOptions & { scope?: string[] },
    ): Promise<PipelineJob[]> {
      return parsed(
        jobListSchema,
        {
          method: "GET",
          path: `${project(projectId)}/pipelines/${pipelineId}/jobs`,
          query: { per_page: perPage, include_retried: "true", "scope[]": options.scope },
          signal: options.signal,
          notFound: "job-gone",
        },
        "a job list",
      );
    },

    /** Deployments of this pipeline waiting for an approval. */
    async blockedDeployments(projectId: string, pipelineId: number, options: CallOptions): Promise<Deployment[]> {
      const deployments = await parsed(
        deploymentListSchema,
        {
          method: "GET",
          path: `${project(projectId)}/deployments`,
          query: { status: "blocked", order_by: "id", sort: "desc", per_page: perPage },
          signal: options.signal,
          notFound: "refused",
        },
        "a deployment list",
      );
      return deployments.filter((deployment) => deployment.deployable?.pipeline?.id === pipelineId);
    },

    createPipeline(
      projectId: string,
      body: { ref: string; variables?: Array<{ key: string; value: string; variable_type: "env_var" }> },
      options: CallOptions,
    ): Promise<Pipeline> {
      return parsed(
        pipelineSchema,
        {
          method: "POST",
          path: `${project(projectId)}/pipeline`,
          body,
          signal: options.signal,
          notFound: "refused",
          creates: true,
        },
        "a pipeline creation",
      );
    },

    retryPipeline(projectId: string, pipelineId: number, options: CallOptions): Promise<Pipeline> {
      return parsed(
        pipelineSchema,
        {
          method: "POST",
          path: `${project(projectId)}/pipelines/${pipelineId}/retry`,
          signal: options.signal,
          notFound: "refused",
          creates: true,
        },
        "a pipeline retry",
      );
    },

    /** Answers the pipeline as GitLab left it: "canceling" or "canceled", or unchanged when nothing could be canceled. */
    cancelPipeline(projectId: string, pipelineId: number, options: CallOptions): Promise<Pipeline> {
      return parsed(
        pipelineSchema,
        {
          method: "POST",
          path: `${project(projectId)}/pipelines/${pipelineId}/cancel`,
          signal: options.signal,
          notFound: "job-gone",
        },
        "a pipeline cancel",
      );
    },

    async playJob(projectId: string, jobId: number, options: CallOptions): Promise<void> {
      await http.json({
        method: "POST",
        path: `${project(projectId)}/jobs/${jobId}/play`,
        signal: options.signal,
        notFound: "refused",
      });
    },

    async reviewDeployment(
      projectId: string,
      deploymentId: number,
      review: { status: "approved" | "rejected"; comment: string },
      options: CallOptions,
    ): Promise<void> {
      await http.json({
        method: "POST",
        path: `${project(projectId)}/deployments/${deploymentId}/approval`,
        body: review,
        signal: options.signal,
        notFound: "refused",
      });
    },

    /** Stream a job's trace (plain text) into `onChunk`, which answers false to stop reading. */
    streamTrace(
      projectId: string,
      jobId: number,
      onChunk: (chunk: Buffer) => boolean,
      options: CallOptions,
    ): Promise<void> {
      return http.stream(
        {
          method: "GET",
          path: `${project(projectId)}/jobs/${jobId}/trace`,
          signal: options.signal,
          notFound: "refused",
        },
        onChunk,
      );
    },
  };
}

export type GitlabCiApi = ReturnType<typeof createGitlabCiApi>;
