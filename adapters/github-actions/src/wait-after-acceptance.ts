import { JobNotFoundError, UpstreamError } from "@jobtasks/core";
import { waitWithBackoff } from "./wait-with-backoff.js";

/** What waiting for something GitHub already accepted came to. */
export type AcceptedOutcome<T> = { found: T } | { found: undefined; lastError: Error | undefined };

const stop = Symbol("stop");

/**
 * Look for what GitHub has already accepted (a dispatched run, a re-run's attempt) until it can be read or
 * the deadline passes. Once GitHub accepted the POST, no error may escape as "try again": the caller would
 * start a second run. So a 404 means "not yet", an error that may pass (5xx, rate limit, broken
 * connection) is waited out within the same bound, and any other error ends the wait; the caller then
 * reports, without retry advice, what was started and how to follow it. `signal` is the start's own
 * deadline (see start-outliving-client.ts), never the client's: when it fires, the wait ends the same way.
 */
export async function waitAfterAcceptance<T>(
  probe: () => Promise<T | undefined>,
  options: { timeoutMs: number; initialMs: number; signal: AbortSignal; now?: () => number },
): Promise<AcceptedOutcome<T>> {
  let lastError: Error | undefined;
  let found: T | typeof stop | undefined;
  try {
    found = await waitWithBackoff<T | typeof stop>(async () => {
      try {
        return await probe();
      } catch (error) {
        if (options.signal.aborted) throw error;
        if (error instanceof JobNotFoundError || (error instanceof UpstreamError && error.httpStatus === 404))
          return undefined;
        lastError = error instanceof Error ? error : new Error(String(error));
        return error instanceof UpstreamError && error.isRetryable ? undefined : stop;
      }
    }, options);
  } catch (error) {
    if (!options.signal.aborted) throw error;
    // The deadline passed inside a read (one that hung) or a pause: as good as the bound passing.
    lastError ??= new Error("GitHub did not answer in time");
  }
  return found === undefined || found === stop ? { found: undefined, lastError } : { found };
}

/** Why the wait ended, for a message: "within 60 s" or "within 60 s; last answer: …". */
export function describeWaitEnd(outcome: { lastError: Error | undefined }, timeoutMs: number): string {
  const bound = timeoutMs < 1000 ? `within ${timeoutMs} ms` : `within ${Math.round(timeoutMs / 1000)} s`;
  return outcome.lastError ? `${bound} (last answer: ${outcome.lastError.message})` : bound;
}

/** A POST that failed with a 5xx or no answer at all: GitHub may have done the work anyway. */
export function isUndecidedPost(error: unknown): error is UpstreamError {
  return error instanceof UpstreamError && (error.httpStatus === undefined || error.httpStatus >= 500);
}
