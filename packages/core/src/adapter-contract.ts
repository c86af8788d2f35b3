import type { z } from "zod";
import type { JsonRpcErrorObject, CallToolResult, ElicitationResponse, InputRequest, TaskStatus } from "./mcp-shapes.js";
import type { JsonValue } from "./json.js";

/**
 * The adapter contract, version 1. Types only: the core calls the `do*` methods, an adapter implements
 * them. An adapter never sees a task id; it sees its own job reference (`Ref`), which the core seals into
 * the task id and hands back on every later call.
 */

/** What the core passes on every call into an adapter. */
export interface AdapterContext {
  /** Aborted when the MCP request that caused this call goes away, or the server shuts down. */
  signal: AbortSignal;
  /** Who is asking: the authenticated principal that owns the task. */
  principal: string;
  /** A structured logger that writes to stderr; never log credentials through it. */
  logger: AdapterLogger;
}

export interface AdapterLogger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/**
 * One observation of an upstream job, in the extension's terms plus the upstream's own words.
 * `status` is the unified status; `rawStatus` is what the upstream said, kept for messages and logs.
 */
export interface JobSnapshot {
  status: TaskStatus;
  rawStatus: string;
  /** Shown to the agent as statusMessage: progress ("step 2/5: test"), what the job waits for, a reason. */
  message?: string;
  /** ISO 8601 time of the upstream's last change, when the upstream tells it. */
  updatedAt?: string;
  /** For `completed`: exactly what tools/call would have returned. A job that ran and failed has isError. */
  result?: CallToolResult;
  /** For `failed`: the JSON-RPC-level fault (job vanished, access lost). */
  error?: JsonRpcErrorObject;
  /** For `input_required`: every outstanding request, keyed by ids unique for the life of the job. */
  inputRequests?: Record<string, InputRequest>;
  /** Ask clients to poll more slowly (for instance when the upstream's rate budget runs low). */
  pollIntervalMs?: number;
}

/** What starting a job gives back: a durable reference, already visible upstream. */
export interface StartedJob<Ref extends JsonValue> {
  ref: Ref;
  /** The first observation, if starting produced one; saves one status read. */
  snapshot?: JobSnapshot;
}

/** A tool an adapter offers. Calling it starts (or attaches to) one upstream job. */
export interface JobTool<Ref extends JsonValue = JsonValue, Input = any> {
  name: string;
  title?: string;
  description: string;
  /** Validated by the core before doStart; a failure is -32602 naming the field. */
  inputSchema: z.ZodType<Input>;
  /** Describes `structuredContent` of the completed result, when the adapter fills it. */
  outputSchema?: z.ZodType;
  /**
   * Lets a client that does not declare the tasks extension call this tool anyway: the core then waits
   * for the job up to this many milliseconds and answers with the plain result. Unset: such a client gets
   * -32021 (the extension is required).
   */
  synchronousWaitMs?: number;
  doStart(input: Input, context: AdapterContext): Promise<StartedJob<Ref>>;
}

export interface JobAdapterV1<Ref extends JsonValue = JsonValue> {
  readonly specificationVersion: "v1";
  /** The adapter's kind ("github-actions", "aws-batch", "rest", "demo"), used in logs. */
  readonly kind: string;
  readonly tools: ReadonlyArray<JobTool<Ref>>;
  /** Suggested client polling interval for this upstream, in milliseconds. */
  readonly pollIntervalMs?: number;
  /**
   * How long the upstream keeps a job's record after it was created, in milliseconds (null: forever).
   * Becomes the task's ttlMs: past it, the task may be forgotten.
   */
  readonly retentionMs?: number | null;
  /**
   * Read the job's current state. Throw JobNotFoundError when the upstream no longer knows it, and
   * UpstreamError (isRetryable) for outages. Terminal answers must never change for the same ref: pin
   * whatever the upstream can re-run (an attempt number) inside the ref.
   * Retries: the server's reader alone retries a status read; send each request once and classify the
   * failure (isRetryable, retryAfterMs, isThrottled) instead of looping or waiting it out.
   */
  doGetStatus(ref: Ref, context: AdapterContext): Promise<JobSnapshot>;
  /**
   * Deliver answers to outstanding input requests. The core passes only keys that the latest snapshot
   * lists as outstanding. Throw InvalidToolInputError (field: "<key>.<field>") to refuse an answer's
   * content; the client then gets -32602. Optional: an adapter without it never reports input_required.
   */
  doRespond?(ref: Ref, responses: Record<string, ElicitationResponse>, context: AdapterContext): Promise<void>;
  /** Ask the upstream to cancel. Cooperative: the job may still finish. Optional. */
  doCancel?(ref: Ref, context: AdapterContext): Promise<void>;
  /** Release connections and timers when the server stops. Optional. */
  close?(): Promise<void>;
}

/** The adapter type the core accepts: any ref type. */
export type AnyJobAdapter = JobAdapterV1<any>;
