import { OutcomeUnknownError } from "@jobtasks/core";

/**
 * What a failed creating POST (a pipeline, a retry's jobs) means. GitLab takes no idempotency key, so once
 * such a request may have reached it, a failure without a usable answer says nothing about whether the
 * pipeline exists: it is an OutcomeUnknownError that is not retryable, never a plain "try again".
 */

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
