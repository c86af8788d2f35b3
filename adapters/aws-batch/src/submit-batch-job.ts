import { randomBytes } from "node:crypto";
import type { SubmitJobRequest } from "@aws-sdk/client-batch";
import { OutcomeUnknownError } from "@jobtasks/core";
import type { AwsBatchApi } from "./aws-batch-api.js";
import { sleep } from "@jobtasks/core/adapter-utils";
import { type BackoffPolicy, jitteredDelay } from "./call-with-backoff.js";
import type { SubmitRateLimiter } from "./submit-rate-limiter.js";
import { isThrottling, toUpstreamError } from "./upstream-errors.js";

/** The tag carrying the correlation id; the same id ends the job name, which is what ListJobs can search. */
export const correlationTagKey = "jobtasks:correlation-id";

export interface SubmitDependencies {
  api: AwsBatchApi;
  policy: BackoffPolicy;
  rateLimiter: SubmitRateLimiter;
  /** Wait before looking a job up by name: ListJobs may lag behind SubmitJob. */
  duplicateCheckDelayMs: number;
}

export interface SubmittedJob {
  jobId: string;
  jobName: string;
  /** True when the job was found by its correlation id after a lost answer, not returned by SubmitJob. */
  recovered: boolean;
}

/** A fresh correlation id, made once per tool call: 96 random bits, lower-case hex. */
export function newCorrelationId(): string {
  return randomBytes(12).toString("hex");
}

/** Job names allow [A-Za-z0-9_-] up to 128 characters and must start with a letter or digit. */
export function jobNameFor(prefix: string, correlationId: string): string {
  const cleaned = prefix
    .replace(/[^A-Za-z0-9_-]/g, "_")
    .replace(/^[^A-Za-z0-9]+/, "")
    .slice(0, 64);
  return `${cleaned || "job"}-${correlationId}`;
}

/** A refusal for the pace of calls: nothing was created, so sending again (later) is safe. */
function isThrottled(error: unknown): boolean {
  return error instanceof OutcomeUnknownError ? error.isThrottled : isThrottling(error);
}

/** ListJobs by exact job name in the queue; the name ends with the correlation id, so at most one job matches. */
async function findJobByName(
  request: SubmitJobRequest & { jobName: string; jobQueue: string },
  dependencies: SubmitDependencies,
): Promise<string | undefined> {
  const summaries = await dependencies.api.listJobsByName(request, { retry: dependencies.policy });
  const wanted = request.jobName.toLowerCase();
  return summaries.find((summary) => summary.jobName?.toLowerCase() === wanted)?.jobId;
}

/** Where a person finds a job by its name: no tool here looks a job up by name, watch_job needs its id. */
function lookForJob(request: { jobName: string; jobQueue: string }): string {
  return (
    `do not submit again; look for job name ${request.jobName} in queue ${request.jobQueue} ` +
    "(the AWS console, or aws batch list-jobs with a JOB_NAME filter), then follow it with watch_job and its job id"
  );
}

/** The message of a failed lookup, for a sentence of ours. */
function lookupFailure(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Submit a job at most once. SubmitJob has no idempotency token, so the request carries a correlation id (in
 * its name and a tag). Throttled submits were refused and are simply retried with jittered backoff. When a
 * submit gets no answer (connection lost, timeout, 5xx) the job may exist: look it up by name and only
 * resubmit, with the same name, when it is not there. When AWS answered 2xx but the answer could not be
 * read, or held no job id, the job was accepted: it is looked up again and again, never resubmitted. When a
 * lookup itself fails, nobody knows whether the job exists, so the error says not to submit again.
 *
 * `signal` stops the submission only while it waits for its first slot, before anything was sent. Once a
 * SubmitJob is on its way a job may exist, and cutting the call short would leave it running unseen: the
 * submission then runs to its end, bounded by the client's request timeout and the retry policy, so the
 * caller learns the job id and can terminate a job whose client left meanwhile.
 */
export async function submitBatchJob(
  request: SubmitJobRequest & { jobName: string; jobQueue: string },
  dependencies: SubmitDependencies,
  signal?: AbortSignal,
): Promise<SubmittedJob> {
  const { policy } = dependencies;
  let lastError: unknown;
  let accepted = false;
  /** One lookup by name; a failure ends the submit with an error that names the job and forbids a retry. */
  const lookUp = async (): Promise<SubmittedJob | undefined> => {
    let existingJobId: string | undefined;
    try {
      existingJobId = await findJobByName(request, dependencies);
    } catch (error) {
      const what = accepted
        ? "AWS Batch accepted SubmitJob (HTTP 2xx) but its answer could not be read"
        : "AWS Batch SubmitJob got no answer, so a job may exist";
      throw new OutcomeUnknownError(
        `${what}, and looking it up by name failed (${lookupFailure(error)}); ${lookForJob(request)}`,
        {
          isRetryable: false,
          cause: error,
        },
      );
    }
    return existingJobId ? { jobId: existingJobId, jobName: request.jobName, recovered: true } : undefined;
  };
  for (let attempt = 1; attempt <= policy.maxAttempts; attempt++) {
    if (accepted) {
      // ListJobs lags behind SubmitJob: give it longer each time.
      await sleep(dependencies.duplicateCheckDelayMs + jitteredDelay(policy, attempt));
      const found = await lookUp();
      if (found) return found;
      continue;
    }
    if (attempt === 1) {
      await dependencies.rateLimiter.acquire(signal);
      if (signal?.aborted) throw signal.reason;
    } else {
      await dependencies.rateLimiter.acquire();
    }
    try {
      const response = await dependencies.api.submitJob(request);
      if (typeof response.jobId === "string" && response.jobId !== "") {
        return { jobId: response.jobId, jobName: response.jobName ?? request.jobName, recovered: false };
      }
      // A 2xx is AWS's word that the job exists; an answer without its id is as good as a lost one.
      accepted = true;
      lastError = new Error("SubmitJob answered 2xx without a job id");
    } catch (caught) {
      // The api hands back its guard's OutcomeUnknownError when a job may exist, else the SDK's error.
      const unknown = caught instanceof OutcomeUnknownError ? caught : undefined;
      lastError = unknown ?? caught;
      if (isThrottled(lastError)) {
        if (attempt < policy.maxAttempts) await sleep(jitteredDelay(policy, attempt));
        continue;
      }
      if (!unknown) throw toUpstreamError("SubmitJob", caught);
      // An unreadable 2xx: AWS answered, so the job was most likely created.
      accepted = unknown.httpStatus !== undefined && unknown.httpStatus >= 200 && unknown.httpStatus < 300;
    }
    await sleep(dependencies.duplicateCheckDelayMs);
    const found = await lookUp();
    if (found) return found;
  }
  if (accepted) {
    // Not retryable: a new tool call would submit a second job next to the one AWS accepted.
    throw new OutcomeUnknownError(
      `AWS Batch accepted SubmitJob (HTTP 2xx) but its answer could not be read, and ListJobs does not show the job yet; ` +
        `it most likely exists: ${lookForJob(request)}`,
      { isRetryable: false, cause: lastError },
    );
  }
  if (isThrottled(lastError)) throw toUpstreamError("SubmitJob", lastError, policy.maxDelayMs);
  throw new OutcomeUnknownError(
    `AWS Batch SubmitJob got no answer ${policy.maxAttempts} times and no job named ${request.jobName} was found in its queue; ` +
      "if one appears later, it is the job this call submitted",
    { isRetryable: true, cause: lastError },
  );
}
