import { InvalidToolInputError, UpstreamError, type AdapterContext } from "@jobtasks/core";
import { describeUrl, type HttpClient, type HttpResponse } from "./http-client.js";
import { queryFirstOf } from "./json-path.js";
import type { RequestOptions } from "./request-options-schema.js";
import { TemplateValueError, renderHeaderValue, renderJson } from "./template.js";
import { ForeignOriginError, buildUrl, type UrlPolicy } from "./url-builder.js";

/**
 * The upstream client of a REST adapter: the job API is described in config, so this client executes one
 * configured request (submit, status, result, respond, cancel): it renders the request's templates, sends
 * it through the HTTP transport (http-client.ts, the only code that speaks HTTP) and checks the status. Who is at fault for a bad value decides the error: a value taken from
 * the tool input is the caller's (InvalidToolInputError), one taken from the upstream is the upstream's.
 */

export interface RequestEnvironment {
  client: HttpClient;
  policy: UrlPolicy;
}

export interface RequestPlan {
  /** What this request is, for messages ("submit", "status", "cancel"). */
  purpose: string;
  options: RequestOptions;
  defaultMethod: string;
  defaultAccepted: readonly number[];
  /** Statuses handed back to the caller instead of raising (404 for status reads, 409 for cancel). */
  passThrough?: readonly number[];
  /** Template context: input, job, body, key, answer. */
  context: object;
  /** Whose values fill the templates. */
  valuesFrom: "input" | "upstream";
  /** Replaces options.body (the decline body of a respond request). */
  bodyOverride?: unknown;
  extraHeaders?: Record<string, string>;
  /** Where the URL of a failed request is logged, at debug level (messages never name it). */
  logger?: AdapterContext["logger"];
}

/** The tool input's or the answer's field a placeholder path reads (`input.scene` → `scene`), if any. */
function callerField(path: string): string | undefined {
  const match = /^\$?\.?(input|answer)(?:\.(.+))?$/.exec(path.trim());
  return match ? (match[2] ?? "arguments") : undefined;
}

function blame(plan: RequestPlan, error: unknown): never {
  if (error instanceof TemplateValueError) {
    // Fault follows the value: the tool input's and the person's answer's fields are the caller's.
    const field = callerField(error.path) ?? (plan.valuesFrom === "input" ? "arguments" : undefined);
    if (field !== undefined) {
      throw new InvalidToolInputError(field, error.message.replace(`${error.path}: `, ""), { cause: error });
    }
    throw new UpstreamError(`Cannot build the ${plan.purpose} request from the upstream's answer: ${error.message}`, {
      isRetryable: false,
      cause: error,
    });
  }
  if (error instanceof ForeignOriginError) {
    plan.logger?.debug({ request: plan.purpose, origin: error.origin }, "refused a URL the upstream gave");
    throw new UpstreamError(`Refusing the ${plan.purpose} request: ${error.message}`, {
      isRetryable: false,
      cause: error,
    });
  }
  throw error;
}

/**
 * A short reason from an error body, for messages (many APIs say `{error: {message}}`). The core redacts
 * the credentials from it (withSecretRedaction), a piece of one cut off here included.
 */
export function upstreamReason(body: unknown): string | undefined {
  const found = queryFirstOf(["error.message", "message", "error_description", "error", "detail", "title"], body);
  if (!found || typeof found.value !== "string") return undefined;
  const reason = found.value;
  return reason.length > 200 ? `${reason.slice(0, 200)}…` : reason;
}

export function errorForStatus(purpose: string, response: HttpResponse): UpstreamError {
  const reason = upstreamReason(response.body);
  return new UpstreamError(`The ${purpose} request answered HTTP ${response.status}${reason ? `: ${reason}` : ""}`, {
    httpStatus: response.status,
    ...(response.retryAfterMs !== undefined ? { retryAfterMs: response.retryAfterMs } : {}),
  });
}

/**
 * The URL of a failed request, and the detail its cause holds (a redirect target), for the debug log. The
 * logger is the context's: the core redacts the credentials from what goes through it.
 */
function logFailure(plan: RequestPlan, method: string, url: URL, error: unknown): void {
  if (!plan.logger) return;
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  plan.logger.debug(
    {
      request: plan.purpose,
      method,
      url: describeUrl(url),
      ...(cause !== undefined ? { detail: cause } : {}),
    },
    "upstream request failed",
  );
}

export async function performRequest(
  environment: RequestEnvironment,
  plan: RequestPlan,
  signal: AbortSignal,
): Promise<HttpResponse> {
  let url: URL;
  const headers: Record<string, string> = { ...plan.extraHeaders };
  let body: unknown;
  try {
    url = buildUrl(environment.policy, plan.options.url, plan.options.query, plan.context);
    for (const [name, template] of Object.entries(plan.options.headers ?? {})) {
      const value = renderHeaderValue(template, plan.context);
      if (value !== undefined) headers[name.toLowerCase()] = value;
    }
    const bodyTemplate = plan.bodyOverride !== undefined ? plan.bodyOverride : plan.options.body;
    body = bodyTemplate === undefined ? undefined : renderJson(bodyTemplate, plan.context);
  } catch (error) {
    blame(plan, error);
  }
  const method = plan.options.method ?? plan.defaultMethod;
  let response: HttpResponse;
  try {
    response = await environment.client.send({ purpose: plan.purpose, method, url, headers, body }, signal);
  } catch (error) {
    logFailure(plan, method, url, error);
    throw error;
  }
  const accepted = plan.options.acceptedStatus ?? plan.defaultAccepted;
  if (accepted.includes(response.status) || plan.passThrough?.includes(response.status)) return response;
  throw errorForStatus(plan.purpose, response);
}
