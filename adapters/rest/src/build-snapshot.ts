import {
  terminalSafe,
  type CallToolResult,
  type ElicitationFormRequest,
  type JobSnapshot,
  type z,
} from "@jobtasks/core";
import { isPlainObject } from "@jobtasks/core/adapter-utils";
import { formSchemaProblem } from "./form-schema.js";
import { inputRequiredOptionsSchema } from "./job-options-schema.js";
import { queryAll, queryFirst } from "./json-path.js";
import type { StatusReading } from "./map-rest-status.js";
import type { ResolvedRestOptions } from "./rest-options.js";
import { renderText } from "./template.js";

/**
 * From a mapped status response to the snapshot the core turns into a task: message, result, input
 * requests. Pure: the adapter does the HTTP (including a follow-up result GET) and passes what it got.
 * A successful result is held to the tool's outputSchema. The core redacts the credentials from the
 * snapshot afterwards (withSecretRedaction): a credential in a result becomes "[redacted]", still a string.
 */

export interface SnapshotInput {
  reading: Exclude<StatusReading, { gone: true }>;
  /** The status response body. */
  body: unknown;
  /** The follow-up result response body, when result.url is configured and the job completed. */
  resultBody?: unknown;
  /** The job's template context: { job: { id } }. */
  job: { id: string };
  pollIntervalMs: number;
  /** The outputSchema of the tool that started the job, when it declares one. */
  outputSchema?: z.ZodType | undefined;
}

const formSchemaSchema = inputRequiredOptionsSchema.shape.schema.unwrap();

/** Compact JSON: indentation would grow the text with the value's depth, not only with its size. */
function asText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The first of `templates` that renders to some text (every placeholder has a value), if any. */
function firstRendered(templates: readonly string[] | undefined, context: object): string | undefined {
  for (const template of templates ?? []) {
    const rendered = renderText(template, context);
    if (rendered !== undefined && rendered.trim() !== "") return rendered;
  }
  return undefined;
}

function progressMessage(options: ResolvedRestOptions, input: SnapshotInput, context: object): string {
  const rendered = firstRendered(options.progress.message, context);
  if (rendered !== undefined) return rendered;
  const percent = options.progress.percentPath ? queryFirst(options.progress.percentPath, input.body) : undefined;
  const raw = input.reading.rawStatus || "working";
  return typeof percent === "number" ? `${raw} (${Math.round(percent)}%)` : raw;
}

function logTail(options: ResolvedRestOptions, body: unknown): string[] {
  if (!options.result.logsPath) return [];
  const logs = queryFirst(options.result.logsPath, body);
  const lines = Array.isArray(logs)
    ? logs.map((line) => asText(line))
    : typeof logs === "string"
      ? logs.split("\n")
      : [];
  // A job's output may hold escapes that set a title or write the clipboard of whoever reads the result.
  return lines.slice(-options.result.logTailLines).map(terminalSafe);
}

function pickFields(
  fields: NonNullable<ResolvedRestOptions["result"]["fields"]>,
  source: unknown,
): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(fields)) {
    const value =
      typeof spec === "string"
        ? queryFirst(spec, source)
        : spec.all
          ? queryAll(spec.path, source)
          : queryFirst(spec.path, source);
    if (value !== undefined && value !== null) picked[name] = value;
  }
  return picked;
}

function completedResult(options: ResolvedRestOptions, input: SnapshotInput): CallToolResult {
  const source = input.resultBody !== undefined ? input.resultBody : input.body;
  const { fields } = options.result;
  const summary =
    options.result.summary === undefined
      ? undefined
      : renderText(options.result.summary, { job: input.job, body: input.body });
  if (!input.reading.isError) {
    const value = queryFirst(options.result.path, source) ?? source ?? {};
    const structuredContent = fields ? pickFields(fields, source) : isPlainObject(value) ? value : { result: value };
    const valueBlock = { type: "text", text: asText(structuredContent) };
    return {
      content: summary === undefined ? [valueBlock] : [{ type: "text", text: summary }, valueBlock],
      structuredContent,
    };
  }
  const lines = [summary ?? `The job ended with status "${input.reading.rawStatus}".`];
  const detail = options.result.errorPath ? queryFirst(options.result.errorPath, source) : undefined;
  if (detail !== undefined) lines.push(`Error: ${asText(detail)}`);
  const tail = logTail(options, source);
  if (tail.length > 0) lines.push(`Last ${tail.length} log lines:`, ...tail);
  const result: CallToolResult = { content: [{ type: "text", text: lines.join("\n") }], isError: true };
  if (fields) result.structuredContent = pickFields(fields, source);
  return result;
}

function inputRequests(
  options: ResolvedRestOptions,
  input: SnapshotInput,
  context: object,
): Record<string, ElicitationFormRequest> | undefined {
  const config = options.inputRequired;
  if (!config) return undefined;
  const key = queryFirst(config.keyPath, input.body);
  // Without the upstream's own id for the question there is no stable key; report working until it appears.
  if (typeof key !== "string" && typeof key !== "number") return undefined;
  const fromBody = config.schemaPath ? queryFirst(config.schemaPath, input.body) : undefined;
  // A schema from the upstream is used only when it is a flat form, as MCP forms are, and compiles (the
  // answer is checked with it); else the config's. Without a config form the upstream's is presented
  // anyway: a decline still resolves it, and an accept that cannot be checked is refused, never declined.
  const parsed = fromBody === undefined ? undefined : formSchemaSchema.safeParse(fromBody);
  const upstreamSchema = parsed?.success ? parsed.data : undefined;
  const usable = upstreamSchema !== undefined && formSchemaProblem(upstreamSchema) === undefined;
  const schema = usable ? upstreamSchema : (config.schema ?? upstreamSchema);
  if (!schema) return undefined;
  const message = renderText(config.message, context) ?? "The job is waiting for input";
  return {
    [String(key)]: {
      method: "elicitation/create",
      params: { mode: "form", message, requestedSchema: schema as ElicitationFormRequest["params"]["requestedSchema"] },
    },
  };
}

function cancelRecognized(options: ResolvedRestOptions, body: unknown): boolean {
  const rule = options.cancel?.recognizedBy;
  if (!rule) return false;
  const values = queryAll(rule.path, body).map((value) => String(value).toLowerCase());
  return rule.values.some((value) => values.includes(value.toLowerCase()));
}

/** "failed: rejected"; an upstream whose own word is "failed" reads "failed", not "failed: failed". */
function failedMessage(rawStatus: string): string {
  return rawStatus.trim().toLowerCase() === "failed" ? "failed" : `failed: ${rawStatus}`;
}

export function buildSnapshot(options: ResolvedRestOptions, input: SnapshotInput): JobSnapshot {
  return checkOutput(readSnapshot(options, input), input.outputSchema);
}

/**
 * Holding a successful result to the tool's declared outputSchema. Official MCP clients refuse a
 * successful result whose structuredContent does not match (and one that leaves it out), so a mismatch
 * from the upstream (a field it did not send, a null) is reported as an error
 * naming the fields, with the upstream's value kept as text, instead of a success the client throws on.
 */
function checkOutput(snapshot: JobSnapshot, outputSchema: z.ZodType | undefined): JobSnapshot {
  const result = snapshot.result;
  if (!outputSchema || !result || result.isError) return snapshot;
  const checked = outputSchema.safeParse(result.structuredContent ?? {});
  if (checked.success) return snapshot;
  const fields = checked.error.issues
    .map((issue) => `${issue.path.join(".") || "(result)"}: ${issue.message}`)
    .join("; ");
  const note = `The job finished, but its result does not match the tool's outputSchema (${fields}); the upstream's result follows as text.`;
  const reported: CallToolResult = { content: [{ type: "text", text: note }, ...result.content], isError: true };
  return { ...snapshot, result: reported };
}

function readSnapshot(options: ResolvedRestOptions, input: SnapshotInput): JobSnapshot {
  const context = { job: input.job, body: input.body };
  const { reading } = input;
  const snapshot: JobSnapshot = { status: reading.status, rawStatus: reading.rawStatus };
  const updatedAt = options.status.updatedAtPath ? queryFirst(options.status.updatedAtPath, input.body) : undefined;
  if (typeof updatedAt === "string" && !Number.isNaN(Date.parse(updatedAt)))
    snapshot.updatedAt = new Date(updatedAt).toISOString();

  if (reading.status === "completed" && cancelRecognized(options, input.body)) {
    return {
      ...snapshot,
      status: "cancelled",
      message: firstRendered(options.progress.cancelledMessage, context) ?? `cancelled (${reading.rawStatus})`,
    };
  }
  switch (reading.status) {
    case "completed":
      snapshot.result = completedResult(options, input);
      snapshot.message = reading.isError
        ? (firstRendered(options.progress.errorMessage, context) ?? failedMessage(reading.rawStatus))
        : (firstRendered(options.progress.completedMessage, context) ?? reading.rawStatus);
      return snapshot;
    case "cancelled":
      snapshot.message = firstRendered(options.progress.cancelledMessage, context) ?? reading.rawStatus;
      return snapshot;
    case "failed":
      snapshot.message = `The upstream reports the job as "${reading.rawStatus}"`;
      snapshot.error = { code: -32603, message: snapshot.message };
      return snapshot;
    case "input_required": {
      const requests = inputRequests(options, input, context);
      if (requests) {
        snapshot.inputRequests = requests;
        if (options.inputRequired?.approval) snapshot.approvalKeys = Object.keys(requests);
        snapshot.message = Object.values(requests)[0]?.params.message ?? reading.rawStatus;
      } else {
        snapshot.status = "working";
        snapshot.message = progressMessage(options, input, context);
      }
      snapshot.pollIntervalMs = input.pollIntervalMs;
      return snapshot;
    }
    default:
      snapshot.message = progressMessage(options, input, context);
      snapshot.pollIntervalMs = input.pollIntervalMs;
      return snapshot;
  }
}
