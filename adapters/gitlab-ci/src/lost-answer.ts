import { mayHaveActed } from "@jobtasks/core/adapter-utils";

/**
 * What a failed creating POST (a pipeline, a retry's jobs) means. GitLab takes no idempotency key, so once
 * such a request may have reached it, a failure without a usable answer says nothing about whether the
 * pipeline exists: it is the core's non-retryable "may have acted" OutcomeUnknownError, never a plain
 * "try again". The tools word it for the agent with `mayHaveActed` themselves.
 */

/** A creating POST that GitLab may have acted on: `what` says what became of its answer. */
export function creationOutcomeUnknown(what: string, options: { httpStatus?: number; cause?: unknown } = {}) {
  return mayHaveActed(`GitLab ${what}`, options);
}
