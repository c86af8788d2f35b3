import { UpstreamError } from "@jobtasks/core";
import { retryWithBackoff } from "@jobtasks/core/adapter-utils";

/** Quick retries inside one request: a couple, soon, before anything is reported to the client. */
export const retryDefaults = {
  immediateRetries: 2,
  immediateRetryDelayMs: 250,
} as const;

/**
 * The longest Retry-After a quick retry waits out. A longer one is not waited for inside a request: the task
 * reports that the upstream asked to wait, and its pollIntervalMs tells the client when to come back.
 */
export const quickRetryMaxWaitMs = 2_000;

/**
 * Retry an upstream call a few times, quickly, when the failure is one that may pass: the core's retry loop
 * with a doubling, jittered back-off (between 1 and 2 times `immediateRetryDelayMs`, then twice that, so
 * that many reads failing together do not retry in step). No attempt starts before the previous answer's
 * Retry-After has elapsed; a Retry-After longer than quickRetryMaxWaitMs, or than what is left of
 * `readTimeoutMs` (the read's own deadline), ends the retries instead. The signal ends the wait even when
 * an adapter ignores it: a read that never answers must not hold every later poll of its job.
 * `reportRetryAfter` hears each attempt's Retry-After as it ends (undefined for a success or a failure
 * without one), so the last call tells what the upstream asked last.
 */
export function retryUpstream<T>(
  /** Called with the attempt's number, 1 for the first. */
  operation: (attempt: number) => Promise<T>,
  signal: AbortSignal,
  options: {
    immediateRetries: number;
    immediateRetryDelayMs: number;
    readTimeoutMs?: number;
    reportRetryAfter?: (retryAfterMs: number | undefined) => void;
  },
): Promise<T> {
  const deadline = performance.now() + (options.readTimeoutMs ?? Number.POSITIVE_INFINITY);
  return retryWithBackoff(operation, {
    maxAttempts: options.immediateRetries + 1,
    backoffMs: (attempt) =>
      Math.round((1 + Math.random()) * Math.max(1, options.immediateRetryDelayMs) * 2 ** (attempt - 1)),
    maxRetryAfterMs: quickRetryMaxWaitMs,
    shouldRetry: (error) =>
      error instanceof UpstreamError &&
      error.isRetryable &&
      (error.retryAfterMs === undefined || performance.now() + error.retryAfterMs < deadline),
    signal,
    ...(options.reportRetryAfter ? { reportRetryAfter: options.reportRetryAfter } : {}),
  });
}

export function formatDuration(milliseconds: number): string {
  if (milliseconds % 3_600_000 === 0) return `${milliseconds / 3_600_000} h`;
  if (milliseconds % 60_000 === 0) return `${milliseconds / 60_000} min`;
  if (milliseconds % 1000 === 0) return `${milliseconds / 1000} s`;
  return `${milliseconds} ms`;
}
