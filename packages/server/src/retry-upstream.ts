import { setTimeout as sleep } from "node:timers/promises";
import pRetry from "p-retry";
import { UpstreamError } from "@jobtasks/core";

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
 * Retry an upstream call a few times, quickly, when the failure is one that may pass. No attempt starts
 * before the previous answer's Retry-After has elapsed; a Retry-After longer than quickRetryMaxWaitMs, or
 * than what is left of `readTimeoutMs` (the read's own deadline), ends the retries instead.
 * `reportRetryAfter` hears each attempt's Retry-After as it ends (undefined for a success or a failure
 * without one), so the last call tells what the upstream asked last.
 */
export function retryUpstream<T>(
  operation: () => Promise<T>,
  signal: AbortSignal,
  options: {
    immediateRetries: number;
    immediateRetryDelayMs: number;
    readTimeoutMs?: number;
    reportRetryAfter?: (retryAfterMs: number | undefined) => void;
  },
): Promise<T> {
  const report = options.reportRetryAfter;
  const startedAt = performance.now();
  const deadline = startedAt + (options.readTimeoutMs ?? Number.POSITIVE_INFINITY);
  // When the last answer's Retry-After ends, on the monotonic clock; p-retry's back-off knows nothing of it.
  let notBefore = startedAt;
  const attempt = async (): Promise<T> => {
    await sleepUntil(notBefore, signal);
    try {
      // The signal ends the wait even when an adapter ignores it: a read that never answers must not hold
      // every later poll of its job. An attempt given up on reports nothing.
      const answered = report
        ? operation().then(
            (value) => {
              report(undefined);
              return value;
            },
            (error: unknown) => {
              report(error instanceof UpstreamError ? error.retryAfterMs : undefined);
              throw error;
            },
          )
        : operation();
      return await untilAborted(answered, signal);
    } catch (error) {
      if (error instanceof UpstreamError && error.retryAfterMs !== undefined)
        notBefore = performance.now() + error.retryAfterMs;
      throw error;
    }
  };
  return pRetry(attempt, {
    retries: options.immediateRetries,
    minTimeout: options.immediateRetryDelayMs,
    factor: 2,
    randomize: true,
    signal,
    shouldRetry: ({ error }) =>
      error instanceof UpstreamError &&
      error.isRetryable &&
      (error.retryAfterMs ?? 0) <= quickRetryMaxWaitMs &&
      notBefore < deadline,
  });
}

/** Resolve once the monotonic clock reaches `time` (timers may fire a little early: check again). */
async function sleepUntil(time: number, signal: AbortSignal): Promise<void> {
  for (let left = time - performance.now(); left > 0; left = time - performance.now()) {
    // timers/promises rejects with an AbortError of its own; the reader expects the signal's reason.
    await sleep(Math.ceil(left), undefined, { signal }).catch((error: unknown) => {
      throw signal.aborted ? signal.reason : error;
    });
  }
}

export function formatDuration(milliseconds: number): string {
  if (milliseconds % 3_600_000 === 0) return `${milliseconds / 3_600_000} h`;
  if (milliseconds % 60_000 === 0) return `${milliseconds / 60_000} min`;
  if (milliseconds % 1000 === 0) return `${milliseconds / 1000} s`;
  return `${milliseconds} ms`;
}

/** Wait for a promise, but give up (with the abort reason) when the signal fires. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      // The abandoned promise may still reject later; nobody waits for it any more.
      promise.catch(() => undefined);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
