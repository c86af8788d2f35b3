import { UpstreamError, type z } from "@jobtasks/core";
import { waitOutRateLimits, type GithubClient } from "./create-github-client.js";
import { translateGithubError } from "./github-errors.js";
import {
  artifactListSchema,
  checkRunAnnotationListSchema,
  dispatchDetailsSchema,
  jobListSchema,
  pendingDeploymentListSchema,
  runReviewListSchema,
  workflowRunListSchema,
  workflowRunSchema,
} from "./github-response-schemas.js";
import type { RunRef } from "./run-ref.js";

/**
 * The GitHub REST calls the adapter makes, each returning only the fields it uses. Failures come out as
 * the core's typed errors; callers that give a status a special meaning (409 on cancel, 204 on dispatch)
 * catch the translated error and look at its httpStatus.
 */
export type GithubApi = ReturnType<typeof createGithubApi>;

export interface ApiCallOptions {
  signal?: AbortSignal;
  /** Treat 404/410 as "the job is gone" (JobNotFoundError). */
  notFoundMeansGone?: boolean;
}

type Repository = { owner: string; repo: string };

export interface GithubApiSettings {
  /**
   * For doGetStatus: every request is sent once, and a rate limit is reported rather than waited out. The
   * server's reader owns the retries of a status read (its quick retries, jitter, Retry-After, outage
   * budget); retrying here as well would multiply both the requests and the wait of every tasks/get.
   */
  statusReads?: boolean;
}

export function createGithubApi(octokit: GithubClient, settings: GithubApiSettings = {}) {
  async function call(
    action: string,
    route: string,
    parameters: Record<string, unknown>,
    options: ApiCallOptions = {},
    requestOptions: Record<string, unknown> = {},
  ): Promise<{ status: number; data: unknown; headers: Record<string, unknown> }> {
    // Every POST here changes something (dispatch, re-run, review, cancel) and is not idempotent: a 5xx or a
    // broken connection may have done it already, so plugin-retry must not send it again. GETs keep the
    // configured retries, except in status reads (see GithubApiSettings).
    const retries = settings.statusReads
      ? { retries: 0, [waitOutRateLimits]: false }
      : route.startsWith("POST ")
        ? { retries: 0 }
        : {};
    try {
      const response = await octokit.request(route, {
        ...parameters,
        request: { ...retries, ...requestOptions, ...(options.signal ? { signal: options.signal } : {}) },
      });
      return { status: response.status, data: response.data, headers: response.headers as Record<string, unknown> };
    } catch (error) {
      throw translateGithubError(error, { action, notFoundMeansGone: options.notFoundMeansGone ?? false });
    }
  }

  function parse<Schema extends z.ZodType>(schema: Schema, data: unknown, action: string): z.output<Schema> {
    const result = schema.safeParse(data);
    if (!result.success) {
      throw new UpstreamError(`GitHub answered an unexpected shape while trying to ${action}`, { cause: result.error });
    }
    return result.data;
  }

  const runPath = (ref: RunRef) => ({ owner: ref.owner, repo: ref.repo, run_id: ref.runId });

  return {
    async getRun(repository: Repository, runId: number | string, options?: ApiCallOptions) {
      const action = `read run ${runId} of ${repository.owner}/${repository.repo}`;
      const response = await call(
        action,
        "GET /repos/{owner}/{repo}/actions/runs/{run_id}",
        { ...repository, run_id: runId },
        options,
      );
      return parse(workflowRunSchema, response.data, action);
    },

    async getRunAttempt(ref: RunRef, options?: ApiCallOptions) {
      const action = `read run ${ref.runId} attempt ${ref.attempt} of ${ref.owner}/${ref.repo}`;
      const response = await call(
        action,
        "GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}",
        { ...runPath(ref), attempt_number: ref.attempt },
        options,
      );
      return parse(workflowRunSchema, response.data, action);
    },

    async listAttemptJobs(ref: RunRef, options?: ApiCallOptions) {
      const action = `list the jobs of run ${ref.runId} attempt ${ref.attempt}`;
      const response = await call(
        action,
        "GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs",
        { ...runPath(ref), attempt_number: ref.attempt, per_page: 100 },
        options,
      );
      return parse(jobListSchema, response.data, action);
    },

    async listArtifacts(ref: RunRef, options?: ApiCallOptions) {
      const action = `list the artifacts of run ${ref.runId}`;
      const response = await call(
        action,
        "GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts",
        { ...runPath(ref), per_page: 100 },
        options,
      );
      return parse(artifactListSchema, response.data, action);
    },

    /**
     * The job log as a stream of text chunks, so that a log of hundreds of MB is never held whole: the
     * caller keeps what it needs and may stop reading early. GitHub answers with a redirect to a
     * short-lived plain-text URL; fetch follows it and drops the Authorization header on the way, as the
     * URL is on another origin.
     */
    async downloadJobLog(
      ref: RunRef,
      jobId: number | string,
      options?: ApiCallOptions,
    ): Promise<AsyncIterable<string>> {
      const action = `download the log of job ${jobId}`;
      const response = await call(
        action,
        "GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs",
        { owner: ref.owner, repo: ref.repo, job_id: jobId },
        options,
        { parseSuccessResponseBody: false },
      );
      return decodeLogBody(response.data, action);
    },

    /** The annotations of a job's check run (an Actions job id is its check run id). */
    async listJobAnnotations(ref: RunRef, jobId: number | string, options?: ApiCallOptions) {
      const action = `read the annotations of job ${jobId}`;
      const response = await call(
        action,
        "GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations",
        { owner: ref.owner, repo: ref.repo, check_run_id: jobId, per_page: 50 },
        options,
      );
      return parse(checkRunAnnotationListSchema, response.data, action);
    },

    async listPendingDeployments(ref: RunRef, options?: ApiCallOptions) {
      const action = `list the pending deployments of run ${ref.runId}`;
      const response = await call(
        action,
        "GET /repos/{owner}/{repo}/actions/runs/{run_id}/pending_deployments",
        runPath(ref),
        options,
      );
      return parse(pendingDeploymentListSchema, response.data, action);
    },

    /** The run's review history (all attempts): every approval or rejection of its deployments. */
    async listRunReviews(ref: RunRef, options?: ApiCallOptions) {
      const action = `read the review history of run ${ref.runId}`;
      const response = await call(
        action,
        "GET /repos/{owner}/{repo}/actions/runs/{run_id}/approvals",
        runPath(ref),
        options,
      );
      return parse(runReviewListSchema, response.data, action);
    },

    async reviewPendingDeployments(
      ref: RunRef,
      review: { environmentIds: Array<number | string>; state: "approved" | "rejected"; comment: string },
      options?: ApiCallOptions,
    ): Promise<void> {
      await call(
        `${review.state === "approved" ? "approve" : "reject"} deployments of run ${ref.runId}`,
        "POST /repos/{owner}/{repo}/actions/runs/{run_id}/pending_deployments",
        {
          ...runPath(ref),
          environment_ids: review.environmentIds.map(Number),
          state: review.state,
          comment: review.comment,
        },
        options,
      );
    },

    async cancelRun(ref: RunRef, force: boolean, options?: ApiCallOptions): Promise<void> {
      const route = force
        ? "POST /repos/{owner}/{repo}/actions/runs/{run_id}/force-cancel"
        : "POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel";
      await call(`${force ? "force-cancel" : "cancel"} run ${ref.runId}`, route, runPath(ref), options);
    },

    async rerunRun(
      repository: Repository,
      runId: number | string,
      settings: { failedJobsOnly: boolean; debugLogging: boolean },
      options?: ApiCallOptions,
    ): Promise<void> {
      const route = settings.failedJobsOnly
        ? "POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs"
        : "POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun";
      await call(
        `re-run run ${runId}`,
        route,
        { ...repository, run_id: runId, enable_debug_logging: settings.debugLogging },
        options,
      );
    },

    /** Answers the new run's id when GitHub gives it (200), or undefined for a bare 204. */
    async dispatchWorkflow(
      repository: Repository,
      dispatch: { workflow: string; ref: string; inputs: Record<string, string>; returnRunDetails: boolean },
      options?: ApiCallOptions,
    ): Promise<number | string | undefined> {
      const action = `dispatch workflow ${dispatch.workflow} of ${repository.owner}/${repository.repo}`;
      const body: Record<string, unknown> = {
        ...repository,
        workflow_id: dispatch.workflow,
        ref: dispatch.ref,
        inputs: dispatch.inputs,
      };
      if (dispatch.returnRunDetails) body.return_run_details = true;
      const response = await call(
        action,
        "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches",
        body,
        options,
      );
      if (response.status === 204 || response.data === "" || response.data === undefined) return undefined;
      return parse(dispatchDetailsSchema, response.data, action).workflow_run_id;
    },

    async listWorkflowRuns(
      repository: Repository,
      filter: { workflow?: string; event?: string; createdSince?: string; headSha?: string },
      options?: ApiCallOptions,
    ) {
      const action = `list workflow runs of ${repository.owner}/${repository.repo}`;
      const query: Record<string, unknown> = { ...repository, per_page: 50 };
      if (filter.event) query.event = filter.event;
      if (filter.createdSince) query.created = `>=${filter.createdSince}`;
      if (filter.headSha) query.head_sha = filter.headSha;
      const route = filter.workflow
        ? "GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs"
        : "GET /repos/{owner}/{repo}/actions/runs";
      if (filter.workflow) query.workflow_id = filter.workflow;
      const response = await call(action, route, query, options);
      return parse(workflowRunListSchema, response.data, action).workflow_runs;
    },
  };
}

/** Text chunks of a log answer: a body stream (the usual case) or an already-read body. */
async function* decodeLogBody(body: unknown, action: string): AsyncIterable<string> {
  if (typeof body === "string") {
    yield body;
    return;
  }
  if (body instanceof ArrayBuffer) {
    yield new TextDecoder().decode(body);
    return;
  }
  if (!(body instanceof ReadableStream)) return;
  const decoder = new TextDecoder();
  try {
    for await (const chunk of body as ReadableStream<Uint8Array>) {
      const text = decoder.decode(chunk, { stream: true });
      if (text !== "") yield text;
    }
  } catch (error) {
    if (error instanceof Error && error.name === "AbortError") throw error;
    // The connection broke mid-log: worth another read, as for any network fault.
    throw new UpstreamError(`GitHub's log stream broke off while trying to ${action}`, {
      isRetryable: true,
      cause: error,
    });
  }
  const rest = decoder.decode();
  if (rest !== "") yield rest;
}
