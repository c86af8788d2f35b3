import { request, type Dispatcher } from "undici";
import { JobNotFoundError, UpstreamError, parseRetryAfter, requestNeverSent } from "@jobtasks/core";
import {
  EtagMemory,
  type JsonRead,
  maxJsonDepth,
  parseBoundedJson,
  readBoundedJson,
  readBoundedText,
  upstreamRequestStarted,
  urlTemplateOf,
  withoutConnectionDetails,
} from "@jobtasks/core/adapter-utils";
import { creationOutcomeUnknown } from "./lost-answer.js";
import { OutageBackoff } from "./outage-backoff.js";
import { RateLimitState } from "./rate-limit-state.js";

/**
 * The one place this adapter speaks HTTP: undici with an injectable dispatcher (MockAgent in tests), the
 * token in `PRIVATE-TOKEN`, a deadline per request on top of the caller's signal, conditional GETs, the
 * rate-limit headers recorded, and every failure turned into UpstreamError or JobNotFoundError with a
 * message built from status codes, never from the request. A creating POST that may have reached GitLab
 * without a usable answer fails with an OutcomeUnknownError instead (lost-answer.ts).
 */

export interface GitlabHttpClientOptions {
  baseUrl: string;
  token: string;
  timeoutMs: number;
  /** The polling interval suggested while GitLab answers; an outage's suggested wait grows from it. */
  pollIntervalMs: number;
  dispatcher?: Dispatcher;
  now: () => number;
}

export interface GitlabRequest {
  method: "GET" | "POST";
  /** Below the base URL, already encoded: "/projects/group%2Fapp/pipelines/42". */
  path: string;
  query?: Record<string, string | number | string[] | undefined>;
  body?: unknown;
  signal: AbortSignal;
  /** What a 404 means: the job is gone (status reads), or a plain upstream refusal (starts, actions). */
  notFound: "job-gone" | "refused";
  /**
   * The request makes something (a pipeline, a retry's jobs): a timeout, a dropped connection, a 5xx or an
   * unreadable 2xx once it may have been sent is then an OutcomeUnknownError, not retryable.
   */
  creates?: true;
}

/** Answers larger than this are not a pipeline, a job list or a deployment list. */
const maxJsonBytes = 8 * 1024 * 1024;
/** Conditional-request memory, bounded in entries (the oldest is forgotten first) and in each answer's size. */
const maxRememberedEtags = 200;
const maxRememberedBytes = 256 * 1024;

export class GitlabHttpClient {
  readonly rateLimit: RateLimitState;
  readonly #outage: OutageBackoff;
  readonly #options: GitlabHttpClientOptions;
  readonly #base: URL;
  readonly #etags = new EtagMemory<unknown>({ maxEntries: maxRememberedEtags, maxEntryBytes: maxRememberedBytes });

  constructor(options: GitlabHttpClientOptions) {
    this.#options = options;
    this.#base = new URL(options.baseUrl.endsWith("/") ? options.baseUrl : `${options.baseUrl}/`);
    this.rateLimit = new RateLimitState(options.now);
    this.#outage = new OutageBackoff(options.now, options.pollIntervalMs);
  }

  /** Send a request and parse its JSON answer. */
  async json(gitlabRequest: GitlabRequest): Promise<unknown> {
    const url = this.#url(gitlabRequest);
    const remembered = gitlabRequest.method === "GET" ? this.#etags.recall(url.href) : undefined;
    const response = await this.#send(gitlabRequest, url, {
      "content-type": "application/json",
      ...(remembered ? { "if-none-match": remembered.etag } : {}),
    });
    // GitLab answers 304 with no body where it honours If-None-Match: the remembered answer still holds.
    if (response.statusCode === 304 && remembered) {
      await response.body.dump();
      return remembered.answer;
    }
    await this.#throwUnlessOk(response, gitlabRequest);
    let text: string;
    try {
      text = (await readBoundedText(response.body, maxJsonBytes)) ?? refuseTooLarge();
    } catch (error) {
      if (!gitlabRequest.creates) throw error;
      throw creationOutcomeUnknown("accepted, but its answer could not be read", {
        cause: error instanceof UpstreamError ? error : withoutConnectionDetails(error),
      });
    }
    const body = answerOf(parseBoundedJson(text), gitlabRequest);
    const etag = headerValue(response.headers, "etag");
    // An answer too large to keep is not remembered, and the URL's older one is forgotten.
    if (gitlabRequest.method === "GET" && etag) this.#etags.remember(url.href, etag, body, text.length);
    return body;
  }

  /** Stream a plain-text answer (a job trace) into `onChunk`; stops when `onChunk` answers false. */
  async stream(gitlabRequest: GitlabRequest, onChunk: (chunk: Buffer) => boolean): Promise<void> {
    const url = this.#url(gitlabRequest);
    const response = await this.#send(gitlabRequest, url, {});
    await this.#throwUnlessOk(response, gitlabRequest);
    for await (const chunk of response.body) {
      if (!onChunk(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array))) {
        response.body.destroy();
        return;
      }
    }
  }

  #url(gitlabRequest: GitlabRequest): URL {
    const url = new URL(gitlabRequest.path.replace(/^\//, ""), this.#base);
    for (const [name, value] of Object.entries(gitlabRequest.query ?? {})) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(item));
    }
    return url;
  }

  async #send(
    gitlabRequest: GitlabRequest,
    url: URL,
    headers: Record<string, string>,
  ): Promise<Dispatcher.ResponseData> {
    gitlabRequest.signal.throwIfAborted();
    const signal = AbortSignal.any([gitlabRequest.signal, AbortSignal.timeout(this.#options.timeoutMs)]);
    // Project paths and ids become placeholders: "/projects/{id}/pipelines/{id}".
    const urlTemplate = urlTemplateOf(gitlabRequest.path);
    const observed = upstreamRequestStarted({
      operation: `${gitlabRequest.method} ${urlTemplate}`,
      method: gitlabRequest.method,
      urlTemplate,
    });
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method: gitlabRequest.method,
        headers: { accept: "application/json", "private-token": this.#options.token, ...headers, ...observed.headers },
        ...(gitlabRequest.body !== undefined ? { body: JSON.stringify(gitlabRequest.body) } : {}),
        signal,
        ...(this.#options.dispatcher ? { dispatcher: this.#options.dispatcher } : {}),
      });
    } catch (error) {
      observed.end({ errorType: gitlabRequest.signal.aborted ? "aborted" : signal.aborted ? "timeout" : "connection" });
      // The caller went away: its own reason, not an outage.
      if (gitlabRequest.signal.aborted) throw gitlabRequest.signal.reason;
      const timedOut = signal.aborted;
      if (gitlabRequest.creates && (timedOut || !requestNeverSent(error))) {
        const lost = timedOut ? `did not answer within ${this.#options.timeoutMs} ms` : "dropped the connection";
        throw creationOutcomeUnknown(lost, { cause: withoutConnectionDetails(error) });
      }
      const reason = timedOut ? `did not answer within ${this.#options.timeoutMs} ms` : "could not be reached";
      const retryAfterMs = this.#outage.failed();
      throw new UpstreamError(`GitLab ${reason} (${gitlabRequest.method})`, {
        isRetryable: true,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
        cause: withoutConnectionDetails(error),
      });
    }
    if (response.statusCode < 500) this.#outage.answered();
    this.rateLimit.record(response.headers);
    const remaining = Number(headerValue(response.headers, "ratelimit-remaining") ?? Number.NaN);
    const limit = Number(headerValue(response.headers, "ratelimit-limit") ?? Number.NaN);
    observed.end({
      status: response.statusCode,
      ...(Number.isFinite(remaining)
        ? { rateLimit: { remaining, ...(Number.isFinite(limit) ? { limit } : {}), credential: "token" } }
        : {}),
    });
    return response;
  }

  async #throwUnlessOk(response: Dispatcher.ResponseData, gitlabRequest: GitlabRequest): Promise<void> {
    const status = response.statusCode;
    if (status >= 200 && status < 300) return;
    const reason = await readReason(response.body);
    if (status === 404 && gitlabRequest.notFound === "job-gone") {
      throw new JobNotFoundError("GitLab no longer knows this pipeline (or the token lost access to its project)");
    }
    // GitLab's own Retry-After first; during an outage without one, a wait that grows with its length.
    const retryAfterMs =
      parseRetryAfter(headerValue(response.headers, "retry-after"), this.#options.now()) ??
      (status === 429 ? this.rateLimit.msUntilReset() : status >= 500 ? this.#outage.failed() : undefined);
    const what = describeStatus(status);
    // A 5xx may come from a proxy that gave up while GitLab went on creating.
    if (gitlabRequest.creates && status >= 500) {
      throw creationOutcomeUnknown(`answered HTTP ${status}${reason ? `: ${reason}` : ""}`, { httpStatus: status });
    }
    throw new UpstreamError(
      `GitLab refused ${gitlabRequest.method}: HTTP ${status}${what}${reason ? `: ${reason}` : ""}`,
      {
        httpStatus: status,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      },
    );
  }
}

function describeStatus(status: number): string {
  if (status === 401) return " (the token is invalid or expired)";
  if (status === 403) return " (the token lacks a role or scope for this)";
  if (status === 404) return " (not found, or not visible to the token)";
  if (status === 429) return " (rate limited)";
  return "";
}

export function headerValue(headers: Dispatcher.ResponseData["headers"], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

function refuseTooLarge(): never {
  throw new UpstreamError(`GitLab answered with more than ${maxJsonBytes} bytes`, { isRetryable: false });
}

/** A 2xx answer's body (undefined when empty), or the error saying why it cannot be used. */
function answerOf(read: JsonRead, gitlabRequest: GitlabRequest): unknown {
  if (read.ok) return read.value;
  switch (read.problem) {
    case "empty":
      return undefined;
    case "too-deep":
      // The same answer comes again on a retry.
      if (gitlabRequest.creates) {
        throw creationOutcomeUnknown(`accepted, but answered with a body nested more than ${maxJsonDepth} levels deep`);
      }
      throw new UpstreamError(
        `GitLab answered ${gitlabRequest.method} with a body nested more than ${maxJsonDepth} levels deep`,
        { isRetryable: false },
      );
    default:
      // Garbage from a proxy or an outage page: worth retrying.
      if (gitlabRequest.creates) throw creationOutcomeUnknown("accepted, but answered with a body that is not JSON");
      throw new UpstreamError(`GitLab answered ${gitlabRequest.method} with a body that is not JSON`, {
        isRetryable: true,
      });
  }
}

/**
 * GitLab's own words for a refusal ("Reference not found"), short: they help the agent fix its arguments.
 * The core redacts the token from them (withSecretRedaction), as from every message. `message` may be a string or an object of lists (`{"base": ["..."]}`).
 */
async function readReason(body: Dispatcher.ResponseData["body"]): Promise<string | undefined> {
  let read: JsonRead;
  try {
    read = await readBoundedJson(body, { maxBytes: 16 * 1024 });
  } catch {
    return undefined;
  }
  if (!read.ok) return undefined;
  const parsed = read.value;
  const message =
    (parsed as { message?: unknown; error?: unknown } | null)?.message ?? (parsed as { error?: unknown } | null)?.error;
  const flat =
    typeof message === "string"
      ? message
      : message && typeof message === "object"
        ? Object.values(message).flat().join("; ")
        : undefined;
  if (typeof flat !== "string" || flat.trim() === "") return undefined;
  return flat.slice(0, 300);
}
