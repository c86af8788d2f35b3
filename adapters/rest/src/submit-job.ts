import { randomUUID } from "node:crypto";
import { InvalidToolInputError, OutcomeUnknownError, UpstreamError, type AdapterContext } from "@jobtasks/core";
import { mayHaveActed, retryWithBackoff } from "@jobtasks/core/adapter-utils";
import { queryFirst } from "./json-path.js";
import { performRequest, type RequestEnvironment } from "./rest-api.js";
import type { ResolvedRestOptions } from "./rest-options.js";
import type { ToolOptions } from "./tool-options-schema.js";
import { ForeignOriginError, compactJobUrl, resolveJobUrl } from "./url-builder.js";

/** What a submit gave back: the job id for the reference, and the body for a first snapshot. */
export interface SubmittedJob {
  jobId: string;
  body: unknown;
  retryAfterMs?: number;
}

/** Longest pause between submit retries; a longer Retry-After ends the retries (a tool call must not hang on it). */
const maxSubmitPauseMs = 5_000;

/**
 * Longest job reference sealed into a task id. The reference travels in every task id (and every tasks/*
 * request), so an upstream answering with an absurd id must not make every later request huge.
 */
export const maxJobReferenceLength = 512;

/** What the agent must know once the upstream may have acted on a submit: a retry could start a second job. */
const mayHaveStarted =
  "a job may have been created upstream and must not be submitted again: check the upstream before starting another";

/**
 * A non-retryable error for a submit the upstream may have acted on (see mayHaveStarted), marked as such
 * for code too.
 */
function submitOutcomeUnknown(detail: string, cause?: unknown): OutcomeUnknownError {
  return mayHaveActed(`${detail}; ${mayHaveStarted}`, { cause });
}

function bounded(reference: string, httpStatus: number): string {
  if (reference.length > maxJobReferenceLength) {
    throw submitOutcomeUnknown(
      `The upstream accepted the submit (HTTP ${httpStatus}), but its job reference is ${reference.length} characters long, more than the ${maxJobReferenceLength} a task id can carry`,
    );
  }
  return reference;
}

function extractJobId(
  environment: RequestEnvironment,
  config: ResolvedRestOptions,
  response: { status: number; headers: Record<string, string>; body: unknown },
  logger: AdapterContext["logger"],
): string {
  const { status: httpStatus, headers, body } = response;
  const reference = config.reference;
  const kind = reference.kind ?? (reference.header ? "url" : "id");
  let value: unknown;
  if (reference.header) {
    value = reference.header
      .map((name) => headers[name.toLowerCase()])
      .find((header) => header !== undefined && header !== "");
  } else if (reference.path) {
    value = queryFirst(reference.path, body);
  }
  if ((typeof value !== "string" || value === "") && typeof value !== "number") {
    const where = reference.header ? `header ${reference.header.join(" / ")}` : `body path ${reference.path}`;
    throw submitOutcomeUnknown(
      `The upstream accepted the submit (HTTP ${httpStatus}), but its answer carries no job reference (${where})`,
    );
  }
  if (kind === "id") return bounded(String(value), httpStatus);
  try {
    return bounded(compactJobUrl(environment.policy, resolveJobUrl(environment.policy, String(value))), httpStatus);
  } catch (error) {
    if (error instanceof ForeignOriginError) {
      logger.debug({ request: "submit", origin: error.origin }, "refused the job's status URL the upstream gave");
      throw submitOutcomeUnknown(
        `The upstream accepted the submit (HTTP ${httpStatus}), but refusing the job's status URL: ${error.message}`,
        error,
      );
    }
    throw error;
  }
}

/**
 * Send the submit request. Retried only when the user opted in with `retries` under an idempotency header
 * (the same key on every attempt); a correlation header is sent fresh per call and never retried. An
 * upstream 400/422 is reported as invalid arguments, since the upstream refused them. Once the upstream
 * may have acted on the request (a 2xx answer, or an answer lost after sending) and no retry under the
 * same key is left, the failure is non-retryable and says a job may exist: the agent's own retry would
 * carry a new key, or none, and could start the job twice.
 */
export async function submitJob(
  environment: RequestEnvironment,
  config: ResolvedRestOptions,
  tool: ToolOptions,
  input: unknown,
  context: AdapterContext,
): Promise<SubmittedJob> {
  const submit = tool.submit;
  const extraHeaders: Record<string, string> = {};
  if (submit.correlationHeader) extraHeaders[submit.correlationHeader.toLowerCase()] = randomUUID();
  if (submit.idempotencyHeader) extraHeaders[submit.idempotencyHeader.toLowerCase()] = randomUUID();
  /** The upstream refused the arguments: worth telling the agent, never worth sending again. */
  const refusedArguments = (error: unknown): error is UpstreamError =>
    error instanceof UpstreamError && (error.httpStatus === 400 || error.httpStatus === 422);
  let response: Awaited<ReturnType<typeof performRequest>>;
  try {
    response = await retryWithBackoff(
      () =>
        performRequest(
          environment,
          {
            purpose: "submit",
            options: submit,
            defaultMethod: "POST",
            defaultAccepted: [200, 201, 202],
            context: { input },
            valuesFrom: "input",
            extraHeaders,
            logger: context.logger,
          },
          context.signal,
        ),
      {
        maxAttempts: submit.idempotencyHeader ? submit.retries + 1 : 1,
        // No request before the upstream's Retry-After: one longer than a submit may pause ends the retries.
        backoffMs: (attempt, retryAfterMs) => retryAfterMs ?? Math.min(maxSubmitPauseMs, 250 * 2 ** (attempt - 1)),
        maxRetryAfterMs: maxSubmitPauseMs,
        shouldRetry: (error) => error instanceof UpstreamError && error.isRetryable && !refusedArguments(error),
        signal: context.signal,
        onRetry: ({ attempt, waitMs }) =>
          context.logger.warn(
            { tool: tool.name, attempt, waitMs },
            "submit failed with a retryable error; retrying under the same idempotency key",
          ),
      },
    );
  } catch (error) {
    if (refusedArguments(error)) {
      throw new InvalidToolInputError(
        "arguments",
        `the upstream refused them (HTTP ${error.httpStatus})${error.message.includes(": ") ? error.message.slice(error.message.indexOf(": ")) : ""}`,
        { cause: error },
      );
    }
    if (error instanceof OutcomeUnknownError) throw submitOutcomeUnknown(error.message, error);
    throw error;
  }
  // Its failures already say that a job may exist.
  return {
    jobId: extractJobId(environment, config, response, context.logger),
    body: response.body,
    ...(response.retryAfterMs !== undefined ? { retryAfterMs: response.retryAfterMs } : {}),
  };
}
