import { retryWithBackoff } from "@jobtasks/core/adapter-utils";
import { type AwsService, isAbort, isThrottling, isTransient, toUpstreamError } from "./upstream-errors.js";

/** How the adapter retries AWS calls that were throttled or got no answer. */
export interface BackoffPolicy {
  /** Calls in total, the first included. */
  maxAttempts: number;
  /** Ceiling of the first wait; doubles with every attempt ("full jitter": the wait is random below it). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Replaceable for tests; Math.random by default. */
  random?: () => number;
}

/** Which failures a call may retry: only throttling (for SubmitJob) or any transient fault (idempotent calls). */
export type RetryOn = "throttling" | "transient";

export function jitteredDelay(policy: BackoffPolicy, attempt: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round((policy.random ?? Math.random)() * ceiling);
}

/**
 * Run an AWS call of a status read once: the server's reader owns its retries (quick ones, jitter, the
 * outage budget), so a failure is only classified here. No retryAfterMs is invented: AWS gave none.
 */
export async function callOnce<T>(
  operation: string,
  call: () => Promise<T>,
  options: { signal?: AbortSignal; service?: AwsService } = {},
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isAbort(error) || options.signal?.aborted) throw error;
    throw toUpstreamError(operation, error, undefined, options.service);
  }
}

/**
 * Run an AWS call, retrying with exponential backoff and full jitter: many tasks polled at once must not
 * retry in lockstep after a TooManyRequestsException. When the budget runs out the error says how long to
 * wait (retryAfterMs) so the core can slow the client down instead of failing the task.
 */
export async function callWithBackoff<T>(
  operation: string,
  call: () => Promise<T>,
  options: {
    policy: BackoffPolicy;
    retryOn: RetryOn;
    signal?: AbortSignal;
    /** Named in error messages. Default: "AWS Batch". */
    service?: AwsService;
  },
): Promise<T> {
  const { policy, retryOn, service } = options;
  const retryable = (error: unknown) =>
    !isAbort(error) && (retryOn === "throttling" ? isThrottling(error) : isTransient(error));
  try {
    return await retryWithBackoff(call, {
      maxAttempts: policy.maxAttempts,
      backoffMs: (attempt) => jitteredDelay(policy, attempt),
      shouldRetry: retryable,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (isAbort(error) || options.signal?.aborted) throw error;
    // A retryable failure thrown here ran out of attempts: it says how long to wait before the next.
    throw toUpstreamError(operation, error, retryable(error) ? policy.maxDelayMs : undefined, service);
  }
}
