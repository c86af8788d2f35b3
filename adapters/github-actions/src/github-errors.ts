import { JobNotFoundError, UpstreamError, parseRetryAfter } from "@jobtasks/core";
import { connectionErrorCode } from "@jobtasks/core/adapter-utils";

/**
 * Turn what octokit throws into the core's typed errors. Messages are built from the HTTP status and
 * GitHub's own error text (the core redacts credentials from it), never from the request, which carries
 * the credentials.
 */

interface RequestErrorLike {
  status: number;
  message: string;
  response?: { headers?: Record<string, string | number | undefined> };
  cause?: unknown;
}

export function isRequestError(error: unknown): error is RequestErrorLike {
  return (
    typeof error === "object" &&
    error !== null &&
    typeof (error as { status?: unknown }).status === "number" &&
    typeof (error as { message?: unknown }).message === "string"
  );
}

export function httpStatusOf(error: unknown): number | undefined {
  return isRequestError(error) ? error.status : undefined;
}

function header(error: RequestErrorLike, name: string): string | undefined {
  const value = error.response?.headers?.[name];
  return value === undefined ? undefined : String(value);
}

/** A 403 or 429 that is about rate limits rather than permissions. */
export function isRateLimitError(error: unknown): boolean {
  if (!isRequestError(error)) return false;
  if (error.status === 429) return true;
  if (error.status !== 403) return false;
  return (
    header(error, "x-ratelimit-remaining") === "0" ||
    /rate limit/i.test(error.message) ||
    header(error, "retry-after") !== undefined
  );
}

/** How long GitHub asked us to wait: retry-after first, then the primary limit's reset time. */
export function rateLimitWaitMs(error: RequestErrorLike, now: number = Date.now()): number {
  const retryAfter = parseRetryAfter(header(error, "retry-after"), now);
  if (retryAfter !== undefined) return retryAfter;
  const reset = Number(header(error, "x-ratelimit-reset"));
  if (header(error, "x-ratelimit-remaining") === "0" && Number.isFinite(reset) && reset > 0) {
    return Math.max(0, reset * 1000 - now);
  }
  // GitHub's advice for a secondary limit without a retry-after: wait at least a minute.
  return 60_000;
}

export interface TranslateOptions {
  /** What was being done, for the message: "read run 42 attempt 1 of octo/app". */
  action: string;
  /** Make a 404/410 mean "the job is gone" (status reads) rather than an ordinary refusal. */
  notFoundMeansGone?: boolean;
}

export function translateGithubError(error: unknown, options: TranslateOptions): Error {
  if (error instanceof JobNotFoundError || error instanceof UpstreamError) return error;
  if (error instanceof Error && error.name === "AbortError") return error;
  if (!isRequestError(error)) {
    return new UpstreamError(`GitHub call failed while trying to ${options.action}`, { cause: error });
  }
  // octokit gives a fetch that failed before any answer (refused, reset, timed out) status 500 and no
  // response: GitHub said nothing, so no HTTP status may be claimed, and a POST may have been done.
  if (error.response === undefined) {
    const code = connectionErrorCode(error.cause);
    return new UpstreamError(
      `GitHub did not answer while trying to ${options.action} (the connection failed${code ? `: ${code}` : ""})`,
      { isRetryable: true, cause: error },
    );
  }
  // GitHub's own words; the core redacts the adapter's credentials from every message (withSecretRedaction).
  const githubText = error.message.slice(0, 300);
  const status = error.status;
  if ((status === 404 || status === 410) && options.notFoundMeansGone) {
    return new JobNotFoundError(
      `GitHub answered ${status} when trying to ${options.action}: the run or attempt no longer exists, or the token lost access to it`,
      { cause: error },
    );
  }
  if (isRateLimitError(error)) {
    return new UpstreamError(`GitHub rate limit reached while trying to ${options.action} (HTTP ${status})`, {
      httpStatus: status,
      isRetryable: true,
      retryAfterMs: rateLimitWaitMs(error),
      cause: error,
    });
  }
  if (status === 401) {
    return new UpstreamError(`GitHub rejected the credentials (HTTP 401) while trying to ${options.action}`, {
      httpStatus: status,
      isRetryable: false,
      cause: error,
    });
  }
  if (status === 403) {
    return new UpstreamError(`GitHub refused access (HTTP 403) while trying to ${options.action}: ${githubText}`, {
      httpStatus: status,
      isRetryable: false,
      cause: error,
    });
  }
  return new UpstreamError(`GitHub answered HTTP ${status} while trying to ${options.action}: ${githubText}`, {
    httpStatus: status,
    cause: error,
  });
}
