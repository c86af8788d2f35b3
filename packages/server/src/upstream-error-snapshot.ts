import { JobNotFoundError, UpstreamError, type JobSnapshot } from "@jobtasks/core";
import { internalErrorCode } from "./task-shape.js";
import { formatDuration } from "./retry-upstream.js";

export interface OutageClock {
  /** When the outage began: the start of the first failed read still unresolved, or of this one. */
  since: number;
  now: number;
  /** How long an outage may last before the task ends failed. */
  budgetMs: number;
}

/** What a failed status read means, and what to log about it; the reader does the remembering and logging. */
export interface UpstreamErrorAnswer {
  /** "expired": answer as a task that has expired (the upstream no longer knows the job). */
  snapshot: JobSnapshot | "expired";
  /** Whether this failure counts toward the outage, so that its start must be remembered. */
  countsAsOutage: boolean;
  log: { level: "info" | "warn" | "error"; fields: Record<string, unknown>; message: string };
}

/**
 * The policy for a status read that failed: a vanished job expires, a refusal fails the task, a throttle
 * waits without counting as an outage, and anything else is an outage that stays working until the budget
 * runs out. A pure function of the error and the outage's clock.
 */
export function upstreamErrorSnapshot(error: unknown, outage: OutageClock): UpstreamErrorAnswer {
  if (error instanceof JobNotFoundError) {
    // Nothing is stored, so whether the job had finished (perhaps "completed", answered a minute ago by
    // another replica) is unknowable here; "failed" could contradict that, "expired" contradicts nothing
    // and is what every replica says. Not remembered either: the upstream stays the one to ask.
    return {
      snapshot: "expired",
      countsAsOutage: false,
      log: {
        level: "info",
        fields: { error: error.message },
        message: "the upstream no longer knows the job; answered as expired",
      },
    };
  }
  if (error instanceof UpstreamError && !error.isRetryable) {
    return {
      snapshot: failedSnapshot("upstream_error", `The upstream refused to report this job: ${error.message}`),
      countsAsOutage: false,
      log: {
        level: "warn",
        fields: { httpStatus: error.httpStatus, error: error.message },
        message: "upstream refused a status read",
      },
    };
  }
  if (error instanceof UpstreamError && error.isThrottled) {
    // The upstream answered and asked us to slow down (a rate limit that may reset in an hour): it is
    // not down, so this does not count toward the outage budget.
    const waitMs = Math.max(error.retryAfterMs ?? 60_000, 1000);
    return {
      snapshot: {
        status: "working",
        rawStatus: "upstream_throttled",
        message: `The upstream asked to wait until ${new Date(outage.now + waitMs).toISOString()} (${error.message}); the job itself is unaffected`,
        pollIntervalMs: waitMs,
      },
      countsAsOutage: false,
      log: {
        level: "info",
        fields: { httpStatus: error.httpStatus, retryAfterMs: error.retryAfterMs },
        message: "upstream asked to wait",
      },
    };
  }
  const log: UpstreamErrorAnswer["log"] =
    error instanceof UpstreamError
      ? {
          level: "warn",
          fields: { httpStatus: error.httpStatus, error: error.message },
          message: "upstream unavailable",
        }
      : { level: "error", fields: { err: error }, message: "adapter failed to read a job status" };
  const reason = error instanceof UpstreamError ? error.message : "an unexpected error while reading the job status";
  const { since, now, budgetMs } = outage;
  if (now - since >= budgetMs) {
    return {
      snapshot: failedSnapshot(
        "upstream_unavailable",
        `The upstream has been unavailable for more than ${formatDuration(budgetMs)} (${reason}); giving up on this task`,
      ),
      countsAsOutage: true,
      log,
    };
  }
  const retryAfterMs = error instanceof UpstreamError ? error.retryAfterMs : undefined;
  return {
    snapshot: {
      status: "working",
      rawStatus: "upstream_unavailable",
      message: `Upstream unavailable since ${new Date(since).toISOString()} (${reason}); still retrying, will give up after ${formatDuration(budgetMs)}`,
      ...(retryAfterMs !== undefined ? { pollIntervalMs: retryAfterMs } : {}),
    },
    countsAsOutage: true,
    log,
  };
}

function failedSnapshot(rawStatus: string, message: string): JobSnapshot {
  return { status: "failed", rawStatus, message, error: { code: internalErrorCode, message } };
}
