import pRetry from "p-retry";
import { UpstreamError } from "@jobtasks/core";

/** Quick retries inside one request: a couple, soon, before anything is reported to the client. */
export const retryDefaults = {
  immediateRetries: 2,
  immediateRetryDelayMs: 250,
} as const;

/**
 * Retry an upstream call a few times, quickly, when the failure is one that may pass. A long Retry-After is
 * not waited out here: the task reports the outage and the client's next poll tries again.
 */
export function retryUpstream<T>(
  operation: () => Promise<T>,
  signal: AbortSignal,
  options: { immediateRetries: number; immediateRetryDelayMs: number },
): Promise<T> {
  // The signal ends the wait even when an adapter ignores it: a read that never answers must not hold
  // every later poll of its job.
  return pRetry(() => untilAborted(operation(), signal), {
    retries: options.immediateRetries,
    minTimeout: options.immediateRetryDelayMs,
    factor: 2,
    randomize: true,
    signal,
    shouldRetry: ({ error }) =>
      error instanceof UpstreamError && error.isRetryable && (error.retryAfterMs ?? 0) <= 2_000,
  });
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
