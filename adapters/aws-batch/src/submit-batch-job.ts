import { randomBytes } from "node:crypto";
import { type BatchClient, ListJobsCommand, SubmitJobCommand, type SubmitJobRequest } from "@aws-sdk/client-batch";
import { OutcomeUnknownError, UpstreamError } from "@jobtasks/core";
import { type BackoffPolicy, callWithBackoff, jitteredDelay, sleep } from "./call-with-backoff.js";
import { isOutcomeUnknown, isThrottling, toUpstreamError } from "./upstream-errors.js";

/** The tag carrying the correlation id; the same id ends the job name, which is what ListJobs can search. */
export const correlationTagKey = "jobtasks:correlation-id";

export interface SubmitRateLimiter {
  /** Resolves when one more SubmitJob may be sent. */
  acquire(signal?: AbortSignal): Promise<void>;
}

/**
 * Spaces SubmitJob calls so that this process stays under a rate (AWS caps SubmitJob at 50 per second per
 * account and Region, shared with everything else in the account). Calls get slots in arrival order, one
 * every 1000/rate milliseconds; no burst credit builds up while idle, so no one-second window ever holds
 * more than rate + 1 calls.
 */
export function createSubmitRateLimiter(perSecond: number, now: () => number = Date.now): SubmitRateLimiter {
  const intervalMs = 1000 / perSecond;
  let nextSlotAt = 0;
  return {
    async acquire(signal) {
      const current = now();
      const slot = Math.max(nextSlotAt, current);
      nextSlotAt = slot + intervalMs;
      if (slot > current) await sleep(slot - current, signal);
    },
  };
}

export interface SubmitDependencies {
  client: BatchClient;
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

/**
 * An error after which the SubmitJob may or may not have created a job, as the core's OutcomeUnknownError:
 * the SDK error's description, status and throttling, but no `cause`. The SDK's retry classifier walks
 * `cause` chains and would find the network error or 5xx there and resend the request blindly; without
 * one it sees a client error and stops, and the adapter looks the job up first. Undefined for any other
 * error.
 */
function submitOutcomeUnknown(error: unknown): OutcomeUnknownError | undefined {
  if (error instanceof OutcomeUnknownError) return error;
  if (!isOutcomeUnknown(error)) return undefined;
  const described = toUpstreamError("SubmitJob", error);
  return new OutcomeUnknownError(described.message, {
    ...(described instanceof UpstreamError && described.httpStatus !== undefined
      ? { httpStatus: described.httpStatus }
      : {}),
    isRetryable: true,
    isThrottled: isThrottling(error),
  });
}

/** A refusal for the pace of calls: nothing was created, so sending again (later) is safe. */
function isThrottled(error: unknown): boolean {
  return error instanceof OutcomeUnknownError ? error.isThrottled : isThrottling(error);
}

function guardedSubmitCommand(request: SubmitJobRequest): SubmitJobCommand {
  const command = new SubmitJobCommand(request);
  // "finalizeRequest" at low priority runs inside the SDK's retry loop, once per attempt it makes.
  command.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        throw submitOutcomeUnknown(error) ?? error;
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
): Promise<string | undefined> {
  const response = await callWithBackoff(
    "ListJobs",
    () =>
      dependencies.client.send(
        new ListJobsCommand({ jobQueue: request.jobQueue, filters: [{ name: "JOB_NAME", values: [request.jobName] }] }),
      ),
    { policy: dependencies.policy, retryOn: "transient" },
  );
  const wanted = request.jobName.toLowerCase();
  return response.jobSummaryList?.find((summary) => summary.jobName?.toLowerCase() === wanted)?.jobId;
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
      const response = await dependencies.client.send(guardedSubmitCommand(request));
      if (typeof response.jobId === "string" && response.jobId !== "") {
        return { jobId: response.jobId, jobName: response.jobName ?? request.jobName, recovered: false };
      }
      // A 2xx is AWS's word that the job exists; an answer without its id is as good as a lost one.
      accepted = true;
      lastError = new Error("SubmitJob answered 2xx without a job id");
    } catch (caught) {
      const unknown = submitOutcomeUnknown(caught);
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
