import { UpstreamError, parseRetryAfter } from "@jobtasks/core";
import { connectionErrorCode, withoutConnectionDetails } from "@jobtasks/core/adapter-utils";

/**
 * A failed API call in words an operator can act on. A 401 or 403 names the namespace and the verb ("the
 * service account cannot create jobs in namespace ml") and is never retryable: a missing permission is not
 * an outage. Messages are built from the status and Kubernetes' Status reason and causes, never from the
 * request (no server URL, no header).
 */

export interface Attempt {
  verb: "create" | "get" | "list" | "watch" | "delete" | "patch";
  /** "jobs", "pods", "pods/log", "events". */
  resource: string;
  namespace: string;
  /** Who acts: "the service account" in the cluster, "the kubeconfig user" outside. */
  actor: string;
}

/** What a failed call's error carries, from the client's ApiException or its Watch error. */
export function httpStatusOf(error: unknown): number | undefined {
  const candidate = error as { code?: unknown; statusCode?: unknown } | null;
  if (typeof candidate?.code === "number") return candidate.code;
  if (typeof candidate?.statusCode === "number") return candidate.statusCode;
  return undefined;
}

interface StatusBody {
  reason?: string;
  message?: string;
  details?: { causes?: Array<{ field?: string; message?: string }> };
}

export function toUpstreamError(error: unknown, attempt: Attempt): UpstreamError {
  if (error instanceof UpstreamError) return error;
  const status = httpStatusOf(error);
  const what = `${attempt.verb} ${attempt.resource} in namespace ${attempt.namespace}`;
  if (status === undefined) {
    const code = connectionErrorCode(error);
    const timedOut = (error as Error | null)?.name === "TimeoutError" || (error as Error | null)?.name === "AbortError";
    return new UpstreamError(
      `the Kubernetes API did not answer (${timedOut ? "timed out" : (code ?? "connection failed")}) to ${what}`,
      { isRetryable: true, cause: withoutConnectionDetails(error) },
    );
  }
  const body = statusBodyOf(error);
  if (status === 401)
    return new UpstreamError(
      `the Kubernetes API refused the credentials of ${attempt.actor} (401 Unauthorized) to ${what}: the token or client certificate is not valid (expired?)`,
      { httpStatus: 401, isRetryable: false, isThrottled: false },
    );
  if (status === 403)
    return new UpstreamError(
      `${attempt.actor} cannot ${what} (403 Forbidden): grant "${attempt.verb}" on ${attempt.resource} in a Role bound to it (see the Kubernetes adapter's README)`,
      { httpStatus: 403, isRetryable: false, isThrottled: false },
    );
  const retryAfter = retryAfterHeaderOf(error);
  const causes = (body?.details?.causes ?? [])
    .slice(0, 5)
    .map((cause) => `${cause.field ? `${cause.field}: ` : ""}${cause.message ?? ""}`.slice(0, 300));
  const reason = body?.reason ? ` ${body.reason}` : "";
  return new UpstreamError(
    `Kubernetes answered ${status}${reason} to ${what}${causes.length > 0 ? `: ${causes.join("; ")}` : ""}`,
    { httpStatus: status, ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}) },
  );
}

function statusBodyOf(error: unknown): StatusBody | undefined {
  const body = (error as { body?: unknown }).body;
  if (typeof body === "object" && body !== null) return body as StatusBody;
  if (typeof body === "string") {
    try {
      return JSON.parse(body) as StatusBody;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The Retry-After header of the client's ApiException, parsed by the core. Not the core's reading of an
 * UpstreamError's `retryAfterMs`: this is where that value comes from.
 */
function retryAfterHeaderOf(error: unknown): number | undefined {
  const headers = (error as { headers?: Record<string, string> }).headers;
  return parseRetryAfter(headers?.["retry-after"]);
}
