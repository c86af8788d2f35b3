import { InvalidToolInputError, JobNotFoundError, UpstreamError, parseRetryAfter } from "@jobtasks/core";
import { readBoundedJson, upstreamRequestStarted } from "@jobtasks/core/adapter-utils";
import { demoJobResponseSchema, type DemoJobResponse } from "./demo-job-response.js";
import { demoJobIdPattern } from "./demo-job-ref.js";

/**
 * The demo API over HTTP, the only file that knows its URLs and headers, with its answers turned into the
 * core's error types: 404 is JobNotFoundError, 5xx/429/network faults are retryable UpstreamErrors (with
 * Retry-After), other 4xx are not retryable. 409 is returned, not thrown, because for approvals and cancels
 * it means "already done". Nothing here redacts: the adapter declares `endpoint.secrets` and the core
 * removes them from everything it hands back.
 */

/** Where the API is and how to sign in to it, read from the configured URL. */
export interface DemoApiEndpoint {
  /** The base URL without credentials, query or trailing slash: safe to show. */
  baseUrl: string;
  /** `Basic ...` when the configured URL carried credentials. */
  authorization: string | undefined;
  /** The credentials in every form this client sends them: what the adapter declares as its secrets. */
  secrets: string[];
}

/** Splits the credentials out of a validated http(s) URL, so that they travel only in the header. */
export function demoApiEndpoint(configuredUrl: string): DemoApiEndpoint {
  const url = new URL(configuredUrl.trim());
  const username = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  const basic = username || password ? Buffer.from(`${username}:${password}`).toString("base64") : undefined;
  // The URL's own encoding of the password may differ from encodeURIComponent's, the form the core derives,
  // so it is declared too; the header's value is a credential of its own.
  const secrets = [...new Set([password, url.password, basic])].filter((secret): secret is string => Boolean(secret));
  url.username = "";
  url.password = "";
  url.search = "";
  url.hash = "";
  return {
    baseUrl: url.href.replace(/\/+$/, ""),
    authorization: basic === undefined ? undefined : `Basic ${basic}`,
    secrets,
  };
}

interface Answer {
  status: number;
  body: unknown;
}

/** Far more than any job record or list of the demo API. */
const maxAnswerBytes = 1024 * 1024;

export function createDemoApi(endpoint: DemoApiEndpoint, fetchFunction: typeof globalThis.fetch) {
  async function send(method: "GET" | "POST", path: string, body: unknown, signal: AbortSignal): Promise<Answer> {
    const operation = `${method} ${path}`;
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (endpoint.authorization) headers.authorization = endpoint.authorization;
    let response: Response;
    // The route with the job id as a placeholder: what the server's span and metric name (never the id).
    const urlTemplate = path.replace(/^\/jobs\/[^/?]+/, "/jobs/{job_id}").replace(/\?.*$/, "");
    const observed = upstreamRequestStarted({ operation: `${method} ${urlTemplate}`, method, urlTemplate });
    try {
      response = await fetchFunction(`${endpoint.baseUrl}${path}`, {
        method,
        headers: { ...headers, ...observed.headers },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal,
        redirect: "error",
      });
      observed.end({ status: response.status });
    } catch (error) {
      observed.end({ errorType: signal.aborted ? "aborted" : "connection" });
      // The caller went away: that is not an upstream fault, let the abort propagate as it is.
      if (signal.aborted) throw error;
      throw new UpstreamError(`Could not reach the demo API at ${endpoint.baseUrl} (${operation})`, {
        isRetryable: true,
        cause: error,
      });
    }
    // A body too large, too deep or not JSON reads as none: the status then decides what it means.
    const read = response.body
      ? await readBoundedJson(response.body, { maxBytes: maxAnswerBytes }).catch(() => undefined)
      : undefined;
    const parsed = read?.ok ? read.value : undefined;
    if (response.ok || response.status === 409) return { status: response.status, body: parsed };

    const apiMessage = readApiMessage(parsed);
    if (response.status === 404) {
      throw new JobNotFoundError(
        `The demo API does not know this job (${operation}); it forgets jobs 24 h after they finish`,
      );
    }
    const detail = apiMessage ? `: ${apiMessage}` : "";
    if (response.status === 400 && path === "/jobs" && apiMessage) {
      // The tool schema mirrors the API's rules, so this only happens when the two drift apart.
      const [field = "arguments", ...problem] = apiMessage.split(": ");
      throw new InvalidToolInputError(field, problem.join(": ") || "refused by the demo API");
    }
    throw new UpstreamError(`The demo API answered ${response.status} to ${operation}${detail}`, {
      httpStatus: response.status,
      retryAfterMs: parseRetryAfter(response.headers.get("retry-after")),
    });
  }

  function readJob(answer: Answer, operation: string): DemoJobResponse {
    const parsed = demoJobResponseSchema.safeParse(answer.body);
    if (!parsed.success) {
      // Garbage from the upstream may be a proxy's error page: worth another try before giving up.
      throw new UpstreamError(`The demo API answered ${operation} with a body that is not a job record`, {
        httpStatus: answer.status,
        isRetryable: true,
        cause: parsed.error,
      });
    }
    return parsed.data;
  }

  function jobPath(jobId: string, suffix = ""): string {
    // A reference is only ever built by this adapter, but a path segment is no place to trust that.
    if (!demoJobIdPattern.test(jobId)) throw new JobNotFoundError("The job reference does not hold a demo job id");
    return `/jobs/${jobId}${suffix}`;
  }

  return {
    async createJob(body: Record<string, unknown>, signal: AbortSignal): Promise<DemoJobResponse> {
      return readJob(await send("POST", "/jobs", body, signal), "POST /jobs");
    },

    async getJob(jobId: string, signal: AbortSignal): Promise<DemoJobResponse> {
      const path = jobPath(jobId);
      return readJob(await send("GET", path, undefined, signal), `GET ${path}`);
    },

    /** Returns false when the API answers 409: the approval was already answered or is no longer pending. */
    async answerApproval(
      jobId: string,
      answer: { approvalId: string; approve: boolean; comment?: string },
      signal: AbortSignal,
    ): Promise<boolean> {
      const response = await send("POST", jobPath(jobId, "/approval"), answer, signal);
      return response.status !== 409;
    },

    /** Returns false when the API answers 409: the job already finished. */
    async cancelJob(jobId: string, signal: AbortSignal): Promise<boolean> {
      const response = await send("POST", jobPath(jobId, "/cancel"), undefined, signal);
      return response.status !== 409;
    },
  };
}

export type DemoApi = ReturnType<typeof createDemoApi>;

function readApiMessage(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const { message, error } = body as { message?: unknown; error?: unknown };
  const text = typeof message === "string" ? message : typeof error === "string" ? error : undefined;
  return text?.slice(0, 300);
}
