import { UpstreamError } from "../errors.js";
import { sleep, sleepUntil, untilAborted } from "./abortable-sleep.js";

/** How `retryWithBackoff` retries. */
export interface RetryOptions {
  /** Calls in total, the first included. */
  maxAttempts: number;
  /**
   * The wait after failed attempt `attempt` (1 for the first call), given the Retry-After that failure
   * carried. The loop never waits less than that Retry-After, whatever this answers.
   */
  backoffMs: (attempt: number, retryAfterMs: number | undefined) => number;
  /** Whether a failure may be tried again. Default: a retryable UpstreamError. */
  shouldRetry?: (error: unknown, attempt: number) => boolean;
  /** The longest Retry-After waited out: a longer one ends the retries, and its error is thrown. Default: any. */
  maxRetryAfterMs?: number;
  /**
   * Ends the loop with the signal's reason when it aborts: during a wait, and during a call, even one that
   * ignores the signal.
   */
  signal?: AbortSignal;
  /**
   * Hears each attempt's Retry-After as the attempt ends (undefined for a success, or a failure without
   * one), so its last call tells the caller what the upstream asked last. An attempt abandoned on abort
   * reports nothing.
   */
  reportRetryAfter?: (retryAfterMs: number | undefined) => void;
  /** Hears each retry before its wait (for a log line). */
  onRetry?: (retry: { error: unknown; attempt: number; waitMs: number }) => void;
}

/** A failure's Retry-After, as the core's UpstreamError carries it. */
function retryAfterOf(error: unknown): number | undefined {
  return error instanceof UpstreamError ? error.retryAfterMs : undefined;
}

function isRetryableUpstreamError(error: unknown): boolean {
  return error instanceof UpstreamError && error.isRetryable;
}

/**
 * Call `operation` until it succeeds, `shouldRetry` refuses its failure, or `maxAttempts` calls have
 * failed; then throw the last failure as it is, for the caller to describe. No attempt starts before the
 * previous failure's Retry-After has elapsed (measured on the monotonic clock from when the failure
 * arrived); a Retry-After longer than `maxRetryAfterMs` ends the retries instead.
 */
export async function retryWithBackoff<T>(
  operation: (attempt: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const { signal, reportRetryAfter: report } = options;
  const shouldRetry = options.shouldRetry ?? isRetryableUpstreamError;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? Number.POSITIVE_INFINITY;
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    try {
      const called = operation(attempt);
      const answered = report
        ? called.then(
            (value) => {
              report(undefined);
              return value;
            },
            (error: unknown) => {
              report(retryAfterOf(error));
              throw error;
            },
          )
        : called;
      return await (signal ? untilAborted(answered, signal) : answered);
    } catch (error) {
      const failedAt = performance.now();
      if (signal?.aborted) throw error;
      const retryAfterMs = retryAfterOf(error);
      if (attempt >= options.maxAttempts || !shouldRetry(error, attempt) || (retryAfterMs ?? 0) > maxRetryAfterMs)
        throw error;
      const waitMs = Math.max(retryAfterMs ?? 0, options.backoffMs(attempt, retryAfterMs));
      options.onRetry?.({ error, attempt, waitMs });
      // A Retry-After is the upstream's to set, so it is kept on the monotonic clock (a timer may fire a
      // millisecond early); a back-off is ours, and one timer is enough for it.
      if (retryAfterMs === undefined) await sleep(waitMs, signal);
      else await sleepUntil(failedAt + waitMs, signal);
    }
  }
}
