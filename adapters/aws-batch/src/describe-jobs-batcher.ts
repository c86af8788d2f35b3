import type { JobDetail } from "@aws-sdk/client-batch";
import { JobNotFoundError, UpstreamError } from "@jobtasks/core";
import { unreadableDescribeJobsError } from "./aws-batch-api.js";

/** DescribeJobs accepts at most this many job ids per call. */
export const describeJobsMaxIds = 100;

export interface DescribeJobsBatcherOptions {
  /**
   * One DescribeJobs call for up to 100 distinct ids; answers only the jobs it still knows. Called with a
   * single id, its errors should name that id: they are handed to that id's readers alone.
   */
  describe(jobIds: string[]): Promise<JobDetail[]>;
  /** How long to collect ids before calling, in milliseconds. A full batch is sent at once. */
  windowMs: number;
}

export interface DescribeJobsBatcher {
  /** The job's current detail; JobNotFoundError when DescribeJobs does not return it. */
  load(jobId: string, signal?: AbortSignal): Promise<JobDetail>;
}

interface Waiter {
  resolve(job: JobDetail): void;
  reject(error: unknown): void;
}

export function unknownJobError(jobId: string): JobNotFoundError {
  return new JobNotFoundError(
    `AWS Batch job ${jobId} is unknown or expired: DescribeJobs no longer returns it (AWS Batch keeps finished jobs for about 7 days)`,
  );
}

/**
 * A definite refusal of the call (HTTP 4xx, not retryable): possibly caused by one of its ids. Throttling
 * and outages are retryable and concern every id alike, so they are handed to every reader unchanged.
 */
function isRefusalOfTheCall(error: unknown): boolean {
  if (!(error instanceof UpstreamError) || error.isRetryable || error.httpStatus === undefined) return false;
  if (error.httpStatus < 400 || error.httpStatus >= 500) return false;
  const code = (error.cause as { name?: unknown } | undefined)?.name;
  return typeof code !== "string" || !refusalsOfTheCaller.has(code);
}

/** Refusals about who is calling, not about any id: splitting the batch would only repeat them. */
const refusalsOfTheCaller: ReadonlySet<string> = new Set([
  "AccessDeniedException",
  "UnrecognizedClientException",
  "InvalidSignatureException",
  "SignatureDoesNotMatch",
  "ExpiredTokenException",
  "IncompleteSignature",
  "MissingAuthenticationToken",
]);

/**
 * Coalesces concurrent status reads: many tasks polled at once cost one DescribeJobs per 100 ids rather than
 * one per task. It holds nothing between batches, so losing it changes no answer, only the call count.
 */
export function createDescribeJobsBatcher(options: DescribeJobsBatcherOptions): DescribeJobsBatcher {
  let pending = new Map<string, Waiter[]>();
  let timer: ReturnType<typeof setTimeout> | undefined;

  function flush(): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const batch = pending;
    pending = new Map();
    if (batch.size === 0) return;
    void readBatch(batch);
  }

  /** Hand each waiter its job, or "unknown or expired" when a well-formed answer leaves its id out. */
  function settle(batch: Map<string, Waiter[]>, jobs: JobDetail[]): void {
    const byId = new Map<string, JobDetail>();
    for (const job of jobs) {
      // describe() should only give jobs with ids; anything else means the answer was not understood.
      if (typeof job !== "object" || job === null || typeof job.jobId !== "string")
        throw new TypeError("an entry of jobs is not a job");
      byId.set(job.jobId, job);
    }
    for (const [jobId, waiters] of batch) {
      const job = byId.get(jobId);
      for (const waiter of waiters) {
        if (job) waiter.resolve(job);
        else waiter.reject(unknownJobError(jobId));
      }
    }
  }

  /**
   * Never rejects: it runs detached from any caller, and an exception escaping it would be an unhandled
   * rejection, which ends the whole server process. Whatever goes wrong reaches the waiting reads instead.
   */
  async function readBatch(batch: Map<string, Waiter[]>): Promise<void> {
    const jobIds = [...batch.keys()];
    let jobs: JobDetail[];
    try {
      jobs = await options.describe(jobIds);
    } catch (error) {
      if (batch.size > 1 && isRefusalOfTheCall(error)) return splitInHalves(batch);
      return rejectAll(batch, error);
    }
    try {
      settle(batch, jobs);
    } catch (error) {
      rejectAll(
        batch,
        unreadableDescribeJobsError(`DescribeJobs for ${jobIds.length} jobs`, "not a list of jobs", error),
      );
    }
  }

  /**
   * AWS refuses a whole DescribeJobs when one id in it is malformed, so one caller's bad id would fail every
   * read it was batched with, and those tasks would end failed for good. Reading each half again, and
   * splitting a refused half further, lands the refusal on the id that caused it (its message then names
   * that id) for about 2·log2(n) extra calls, not one per id: a caller repeating a bad id cannot multiply
   * everyone's DescribeJobs traffic.
   */
  async function splitInHalves(batch: Map<string, Waiter[]>): Promise<void> {
    const entries = [...batch];
    const middle = Math.floor(entries.length / 2);
    await Promise.all([readBatch(new Map(entries.slice(0, middle))), readBatch(new Map(entries.slice(middle)))]);
  }

  function rejectAll(batch: Map<string, Waiter[]>, error: unknown): void {
    for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
  }

  return {
    load(jobId, signal) {
      return new Promise<JobDetail>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const onAbort = (): void => reject(signal?.reason);
        signal?.addEventListener("abort", onAbort, { once: true });
        const waiter: Waiter = {
          resolve: (job) => {
            signal?.removeEventListener("abort", onAbort);
            resolve(job);
          },
          reject: (error) => {
            signal?.removeEventListener("abort", onAbort);
            reject(error);
          },
        };
        const waiters = pending.get(jobId);
        if (waiters) waiters.push(waiter);
        else pending.set(jobId, [waiter]);
        if (pending.size >= describeJobsMaxIds) flush();
        else if (timer === undefined) timer = setTimeout(flush, options.windowMs);
      });
    },
  };
}
