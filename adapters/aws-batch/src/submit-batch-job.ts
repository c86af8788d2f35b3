import { randomBytes } from "node:crypto";
import { type BatchClient, ListJobsCommand, SubmitJobCommand, type SubmitJobRequest } from "@aws-sdk/client-batch";
import { UpstreamError } from "@jobtasks/core";
import { type BackoffPolicy, callWithBackoff, jitteredDelay, sleep } from "./call-with-backoff.js";
import type { SubmitRateLimiter } from "./submit-rate-limiter.js";
import { isAbort, isOutcomeUnknown, isThrottling, isUnreadableSuccess, toUpstreamError } from "./upstream-errors.js";

/** The tag carrying the correlation id; the same id ends the job name, which is what ListJobs can search. */
export const correlationTagKey = "jobtasks:correlation-id";

export interface SubmitDependencies {
  client: BatchClient;
  policy: BackoffPolicy;
  rateLimiter: SubmitRateLimiter;
  secrets: ReadonlyArray<string | undefined>;
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
  const cleaned = prefix.replace(/[^A-Za-z0-9_-]/g, "_").replace(/^[^A-Za-z0-9]+/, "").slice(0, 64);
  return `${cleaned || "job"}-${correlationId}`;
}

/**
 * Thrown in place of an error after which the SubmitJob may or may not have created a job. It carries no
 * `cause`, `$metadata` or `code`, so the SDK's own retry middleware sees a client error and does not resend
 * the request blindly; the adapter looks the job up first.
 */
class SubmitOutcomeUnknownError extends Error {
  override readonly name = "SubmitOutcomeUnknownError";
  constructor(readonly unansweredError: unknown) {
    super("SubmitJob got no usable answer");
  }
}

function guardedSubmitCommand(request: SubmitJobRequest): SubmitJobCommand {
  const command = new SubmitJobCommand(request);
  // "finalizeRequest" at low priority runs inside the SDK's retry loop, once per attempt it makes.
  command.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        throw isOutcomeUnknown(error) ? new SubmitOutcomeUnknownError(error) : error;
      }
    },
    { step: "finalizeRequest", priority: "low", name: "jobtasksSubmitOutcomeGuard" },
  );
  return command;
}

/** ListJobs by exact job name in the queue; the name ends with the correlation id, so at most one job matches. */
async function findJobByName(
  request: SubmitJobRequest & { jobName: string; jobQueue: string },
  dependencies: SubmitDependencies,
  signal: AbortSignal | undefined,
): Promise<string | undefined> {
  const response = await callWithBackoff(
    "ListJobs",
    () =>
      dependencies.client.send(
        new ListJobsCommand({ jobQueue: request.jobQueue, filters: [{ name: "JOB_NAME", values: [request.jobName] }] }),
        signal ? { abortSignal: signal } : {},
      ),
    { policy: dependencies.policy, retryOn: "transient", secrets: dependencies.secrets, ...(signal ? { signal } : {}) },
  );
  const wanted = request.jobName.toLowerCase();
  return response.jobSummaryList?.find((summary) => summary.jobName?.toLowerCase() === wanted)?.jobId;
}

/**
 * Submit a job at most once. SubmitJob has no idempotency token, so the request carries a correlation id (in
 * its name and a tag). Throttled submits were refused and are simply retried with jittered backoff. When a
 * submit gets no answer (connection lost, timeout, 5xx) the job may exist: look it up by name and only
 * resubmit, with the same name, when it is not there. When AWS answered 2xx but the answer could not be
 * read, the job was accepted: it is looked up again and again, never resubmitted.
 */
export async function submitBatchJob(
  request: SubmitJobRequest & { jobName: string; jobQueue: string },
  dependencies: SubmitDependencies,
  signal?: AbortSignal,
): Promise<SubmittedJob> {
  const { policy } = dependencies;
  let lastError: unknown;
  let accepted = false;
  for (let attempt = 1; attempt <= policy.maxAttempts; attempt++) {
    if (accepted) {
      // ListJobs lags behind SubmitJob: give it longer each time.
      await sleep(dependencies.duplicateCheckDelayMs + jitteredDelay(policy, attempt), signal);
      const existingJobId = await findJobByName(request, dependencies, signal);
      if (existingJobId) return { jobId: existingJobId, jobName: request.jobName, recovered: true };
      continue;
    }
    await dependencies.rateLimiter.acquire(signal);
    try {
      const response = await dependencies.client.send(guardedSubmitCommand(request), signal ? { abortSignal: signal } : {});
      if (!response.jobId) throw new UpstreamError("AWS Batch SubmitJob answered without a job id", { isRetryable: false });
      return { jobId: response.jobId, jobName: response.jobName ?? request.jobName, recovered: false };
    } catch (caught) {
      const error = caught instanceof SubmitOutcomeUnknownError ? caught.unansweredError : caught;
      if (isAbort(error) || signal?.aborted) throw error;
      lastError = error;
      if (isThrottling(error)) {
        if (attempt < policy.maxAttempts) await sleep(jitteredDelay(policy, attempt), signal);
        continue;
      }
      if (!isOutcomeUnknown(error)) throw toUpstreamError("SubmitJob", error, dependencies.secrets);
      accepted = isUnreadableSuccess(error);
      await sleep(dependencies.duplicateCheckDelayMs, signal);
      const existingJobId = await findJobByName(request, dependencies, signal);
      if (existingJobId) return { jobId: existingJobId, jobName: request.jobName, recovered: true };
    }
  }
  if (accepted) {
    // Not retryable: a new tool call would submit a second job next to the one AWS accepted.
    throw new UpstreamError(
      `AWS Batch accepted SubmitJob (HTTP 2xx) but its answer could not be read, and ListJobs does not show job ${request.jobName} ` +
        "in its queue yet; do not submit again: the job most likely exists (find it by that name, then follow it with its job id)",
      { isRetryable: false, cause: lastError },
    );
  }
  if (isThrottling(lastError)) throw toUpstreamError("SubmitJob", lastError, dependencies.secrets, policy.maxDelayMs);
  throw new UpstreamError(
    `AWS Batch SubmitJob got no answer ${policy.maxAttempts} times and no job named ${request.jobName} was found in its queue; ` +
      "if one appears later, it is the job this call submitted",
    { isRetryable: true, cause: lastError },
  );
}
