import { OutcomeUnknownError } from "@jobtasks/core";

/**
 * What a failed creating POST (a pipeline, a retry's jobs) means. GitLab takes no idempotency key, so once
 * such a request may have reached it, a failure without a usable answer says nothing about whether the
 * pipeline exists: it is an OutcomeUnknownError that is not retryable, never a plain "try again".
 */

/** Connection errors that mean the request never left: GitLab cannot have acted on it. */
const notSentCodes = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** Whether undici's error says the request never reached GitLab (its code, or its cause's). */
export function neverSent(error: unknown): boolean {
  for (
    let current: unknown = error, depth = 0;
    current && typeof current === "object" && depth < 5;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && notSentCodes.has(code)) return true;
  }
  return false;
}

/** A creating POST that GitLab may have acted on: `what` says what became of its answer. */
export function creationOutcomeUnknown(what: string, options: { httpStatus?: number; cause?: unknown } = {}) {
  return new OutcomeUnknownError(`GitLab ${what}`, {
    isRetryable: false,
    ...(options.httpStatus !== undefined ? { httpStatus: options.httpStatus } : {}),
    ...(options.cause !== undefined ? { cause: options.cause } : {}),
  });
}

/** The tool's word for a lost creating call: `message` says what may exist and where to look; not retryable. */
export function mayHaveActed(message: string, lost: OutcomeUnknownError): OutcomeUnknownError {
  return new OutcomeUnknownError(message, {
    isRetryable: false,
    ...(lost.httpStatus !== undefined ? { httpStatus: lost.httpStatus } : {}),
    cause: lost,
  });
}
