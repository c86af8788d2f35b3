import type { Dispatcher } from "undici";
import { OutcomeUnknownError, UpstreamError, parseRetryAfter, requestNeverSent } from "@jobtasks/core";
import {
  flattenHeaders,
  type JsonRead,
  maxJsonDepth,
  parseBoundedJson,
  readBoundedJson,
  readBoundedText,
  upstreamRequestStarted,
  urlTemplateOf,
} from "@jobtasks/core/adapter-utils";
import { networkReason } from "./network-failure.js";

/**
 * The one place this adapter talks HTTP: undici with an injectable dispatcher (MockAgent in tests), a
 * per-request timeout, a size bound on bodies, JSON parsing that never throws anything but UpstreamError,
 * and redirects followed by hand: only to configured origins, and without credentials once a redirect
 * leaves the origin the request was sent to. A failure after which the upstream may have acted on the
 * request (an answer timed out or lost after sending, a success that could not be read) is an
 * OutcomeUnknownError: harmless for a status read, for a submit it means a job may exist.
 */

export interface HttpClientOptions {
  /** undici dispatcher (Agent, MockAgent). Default: undici's global dispatcher. */
  dispatcher?: Dispatcher;
  timeoutMs: number;
  maxResponseBytes: number;
  maxRedirects: number;
  /** Headers sent on every request (config-fixed, no secrets). */
  fixedHeaders: Record<string, string>;
  /** Credential headers, sent only to `credentialOrigins`. */
  credentialHeaders: Record<string, string>;
  credentialOrigins: ReadonlySet<string>;
  /**
   * Origins a redirect may lead to (baseUrl's, allowedOrigins, allowedRedirectOrigins). A redirect
   * anywhere else is refused: its answer would otherwise be read as the job's status or result.
   */
  redirectOrigins: ReadonlySet<string>;
}

export interface HttpRequest {
  /** What the request is for ("status", "submit", "cancel"): messages name it, never the URL. */
  purpose?: string;
  method: string;
  url: URL;
  headers?: Record<string, string>;
  /** Serialised as JSON when present. */
  body?: unknown;
}

export interface HttpResponse {
  status: number;
  /** Lower-case header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Parsed JSON, or undefined for an empty body. */
  body: unknown;
  /** Where the answer came from after redirects. */
  url: URL;
  /** Retry-After of this response, in milliseconds, when it had one. */
  retryAfterMs?: number;
}

export interface HttpClient {
  send(httpRequest: HttpRequest, signal: AbortSignal): Promise<HttpResponse>;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/** How much of an error body is read: enough for a JSON `{error: {message}}`, never a whole outage page. */
const errorBodyBytes = 64 * 1024;

/** A body of at most `limit` bytes, or "" for a longer one. A body cut short is not JSON, so it gives no reason. */
async function readPrefix(body: Dispatcher.ResponseData["body"], limit: number): Promise<string> {
  try {
    return (await readBoundedText(body, limit)) ?? "";
  } catch {
    // A reason is a nicety; the status already says what went wrong.
    return "";
  }
}

/** A success answer's body, or the error saying why it cannot be used: the upstream may have acted anyway. */
function bodyOf(parsed: JsonRead, status: number, where: string, maxBytes: number): unknown {
  if (parsed.ok) return parsed.value;
  if (parsed.problem === "empty") return undefined;
  if (parsed.problem === "too-large") {
    throw new OutcomeUnknownError(
      `The response to ${where} (HTTP ${status}) is larger than maxResponseBytes (${maxBytes} bytes)`,
      { isRetryable: false },
    );
  }
  if (parsed.problem === "too-deep") {
    throw new OutcomeUnknownError(
      `The response to ${where} (HTTP ${status}) is nested more than ${maxJsonDepth} levels deep`,
      { httpStatus: status, isRetryable: false },
    );
  }
  const error = parsed.error;
  // JSON.parse quotes an excerpt of the body, which may hold anything (a token the upstream echoed): the
  // cause keeps only the reason.
  if (error instanceof SyntaxError) {
    const reason = error.message.split('"')[0]!.replace(/[,\s]+$/, "");
    if (error.stack !== undefined) error.stack = error.stack.replace(error.message, reason);
    error.message = reason;
  }
  // Garbage from a proxy or an outage page: worth retrying, and the core fails the task once retries run out.
  throw new OutcomeUnknownError(`The response to ${where} (HTTP ${status}) is not valid JSON`, {
    httpStatus: status,
    isRetryable: true,
    cause: error,
  });
}

/**
 * Origin plus path, without query: for the debug log and causes only, never for a message. Keeping the
 * upstream's address out of messages is hiding upstream internals; credentials are the core's to redact.
 */
export function describeUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

// undici loads on the first request rather than with the adapter: a stdio server that an agent host
// spawns answers its first messages (discover, tools/list) before any job needs HTTP.
// A bundler that splits the import into a chunk of its own (the command line's bundle does) may hand back
// undici's CommonJS exports as `default` only, where Node gives them as named exports too.
let undici: Promise<typeof import("undici")> | undefined;
const loadUndici = () =>
  (undici ??= import("undici").then((module) =>
    typeof module.request === "function" ? module : (module as unknown as { default: typeof import("undici") }).default,
  ));

export function createHttpClient(options: HttpClientOptions): HttpClient {
  async function sendOnce(
    purpose: string,
    method: string,
    url: URL,
    headers: Record<string, string>,
    payload: string | undefined,
    signal: AbortSignal,
    firstOrigin: string,
  ) {
    // Credentials go to their origins only, and never follow a redirect to another origin (as fetch does).
    const credentialed = options.credentialOrigins.has(url.origin) && url.origin === firstOrigin;
    const withCredentials = credentialed ? { ...headers, ...options.credentialHeaders } : headers;
    const { request } = await loadUndici();
    // The configured paths are the operator's; ids in them (anything not a plain word) become placeholders.
    const observed = upstreamRequestStarted({ operation: purpose, method, urlTemplate: urlTemplateOf(url.pathname) });
    try {
      const response = await request(url, {
        method: method as Dispatcher.HttpMethod,
        headers: { ...withCredentials, ...observed.headers },
        ...(payload !== undefined ? { body: payload } : {}),
        signal,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      });
      observed.end({ status: response.statusCode });
      return response;
    } catch (error) {
      observed.end({ errorType: signal.aborted ? "timeout" : "connection" });
      if (signal.aborted && signal.reason instanceof DOMException && signal.reason.name === "TimeoutError") {
        throw new OutcomeUnknownError(`the ${purpose} request timed out after ${options.timeoutMs} ms`, {
          isRetryable: true,
          cause: error,
        });
      }
      if (signal.aborted) throw signal.reason ?? error;
      const failure = new UpstreamError(
        `the ${purpose} request failed before an answer arrived: ${networkReason(error)}`,
        { isRetryable: true, cause: error },
      );
      throw requestNeverSent(error) ? failure : OutcomeUnknownError.from(failure);
    }
  }

  return {
    async send(httpRequest, callerSignal) {
      // A timer we hold and clear, not AbortSignal.timeout: Node 20's AbortSignal.any holds its sources
      // weakly, and a timeout signal nothing else referenced could be collected and never fire.
      const timeout = new AbortController();
      const timer = setTimeout(
        () => timeout.abort(new DOMException(`timed out after ${options.timeoutMs} ms`, "TimeoutError")),
        options.timeoutMs,
      );
      const signal = AbortSignal.any([callerSignal, timeout.signal]);
      const baseHeaders: Record<string, string> = {
        accept: "application/json",
        ...options.fixedHeaders,
        ...httpRequest.headers,
      };
      const purpose = httpRequest.purpose ?? "upstream";
      let method = httpRequest.method;
      let payload = httpRequest.body === undefined ? undefined : JSON.stringify(httpRequest.body);
      if (payload !== undefined) baseHeaders["content-type"] = "application/json";
      let url = httpRequest.url;
      let acted = false;
      try {
        for (let redirects = 0; ; redirects++) {
          const response = await sendOnce(purpose, method, url, baseHeaders, payload, signal, httpRequest.url.origin);
          const headers = flattenHeaders(response.headers);
          const location = headers["location"];
          const follow =
            redirectStatuses.has(response.statusCode) &&
            location !== undefined &&
            (method === "GET" || response.statusCode === 303);
          if (follow && redirects < options.maxRedirects) {
            // A 303 after a POST: the upstream acted on the request; whatever fails from here, it was sent.
            if (method !== "GET") acted = true;
            await response.body.dump();
            const next = new URL(location, url);
            if (next.protocol !== "https:" && next.protocol !== "http:") {
              throw new UpstreamError(
                `the ${purpose} request was redirected to a non-HTTP URL; the redirect was not followed`,
                {
                  isRetryable: false,
                  cause: new Error(`${method} ${describeUrl(url)} redirected to a ${next.protocol} URL`),
                },
              );
            }
            if (!options.redirectOrigins.has(next.origin)) {
              throw new UpstreamError(
                `the ${purpose} request was redirected to an origin that is not allowed (neither baseUrl's nor in allowedOrigins or allowedRedirectOrigins); the redirect was not followed`,
                {
                  httpStatus: response.statusCode,
                  isRetryable: false,
                  cause: new Error(`${method} ${describeUrl(url)} redirected to ${next.origin}`),
                },
              );
            }
            url = next;
            method = "GET";
            payload = undefined;
            delete baseHeaders["content-type"];
            continue;
          }
          const where = `the ${purpose} request`;
          const retryAfterMs = parseRetryAfter(headers["retry-after"]);
          if (response.statusCode >= 400) {
            // Error bodies are read only for a short reason: an outage page of any size keeps its status's
            // retryability, and the status (not the body) decides what happens next.
            const body = safeJson(await readPrefix(response.body, Math.min(options.maxResponseBytes, errorBodyBytes)));
            return {
              status: response.statusCode,
              headers,
              body,
              url,
              ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
            };
          }
          const declaredLength = Number(headers["content-length"]);
          if (Number.isFinite(declaredLength) && declaredLength > options.maxResponseBytes) {
            response.body.destroy();
            throw new OutcomeUnknownError(
              `The response to ${where} (HTTP ${response.statusCode}) is larger than maxResponseBytes (${options.maxResponseBytes} bytes)`,
              { isRetryable: false },
            );
          }
          let read: JsonRead;
          try {
            read = await readBoundedJson(response.body, { maxBytes: options.maxResponseBytes });
          } catch (error) {
            throw new OutcomeUnknownError(`Reading the response to ${where} (HTTP ${response.statusCode}) failed`, {
              isRetryable: true,
              cause: error,
            });
          }
          const body = bodyOf(read, response.statusCode, where, options.maxResponseBytes);
          return {
            status: response.statusCode,
            headers,
            body,
            url,
            ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
          };
        }
      } catch (error) {
        throw acted && error instanceof UpstreamError ? OutcomeUnknownError.from(error) : error;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** An error body's JSON, or undefined when it is empty, not JSON, or nested too deeply to read a reason from. */
function safeJson(text: string): unknown {
  const parsed = parseBoundedJson(text);
  return parsed.ok ? parsed.value : undefined;
}
