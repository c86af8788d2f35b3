import type { z } from "../zod.js";
import type {
  JsonRpcErrorObject,
  CallToolResult,
  ElicitationResponse,
  InputRequest,
  StartInputRequest,
  StartInputResponse,
  TaskStatus,
} from "../mcp-shapes.js";
import type { JsonValue } from "../json.js";
import type { JobEventV1, JobEventsV1 } from "./job-events-v1.js";

/**
 * The adapter contract, version 1. Types only: the core calls the `do*` methods, an adapter implements
 * them. An adapter never sees a task id; it sees its own job reference (`Ref`), which the core seals into
 * the task id and hands back on every later call.
 * An optional property here means "absent", never a key set to undefined (exactOptionalPropertyTypes):
 * refs and snapshots travel as JSON, which drops such a key, so a ref sealed with `{ attempt: undefined }`
 * would come back as `{}`. Leave the key out (`...(x !== undefined ? { x } : {})`) instead.
 */

/** What the core passes on every call into an adapter. */
export interface AdapterContextV1 {
  /** Aborted when the MCP request that caused this call goes away, or the server shuts down. */
  signal: AbortSignal;
  /** Who is asking: the authenticated principal that owns the task. */
  principal: string;
  /** A structured logger that writes to stderr; never log credentials through it. */
  logger: AdapterLoggerV1;
  /**
   * In doStart of a tool with `inputBeforeStart`: the client's answers to the questions asked before the
   * start, keyed as they were asked. They are the client's word, as the arguments are. Absent otherwise.
   */
  inputResponses?: Readonly<Record<string, StartInputResponse>>;
}

export interface AdapterLoggerV1 {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/**
 * One observation of an upstream job, in the extension's terms plus the upstream's own words.
 * `status` is the unified status; `rawStatus` is what the upstream said, kept for messages and logs.
 */
export interface JobSnapshotV1 {
  status: TaskStatus;
  rawStatus: string;
  /** Shown to the agent as statusMessage: progress ("step 2/5: test"), what the job waits for, a reason. */
  message?: string;
  /** ISO 8601 time of the upstream's last change, when the upstream tells it. */
  updatedAt?: string;
  /** For `completed`: exactly what tools/call would have returned. A job that ran and failed has isError. */
  result?: CallToolResult;
  /**
   * For `failed`: the JSON-RPC-level fault (job vanished, access lost), sent to the client as it is, so an
   * adapter may end a job this way on purpose; without it the client sees -32603 with `message`.
   */
  error?: JsonRpcErrorObject;
  /** For `input_required`: every outstanding request, keyed by ids unique for the life of the job. */
  inputRequests?: Record<string, InputRequest>;
  /**
   * The keys among `inputRequests` whose question is an approval: a person decides it (a deployment review,
   * a manual production job, "run the suspended job?"). The server lets only a caller holding the approval
   * scope answer these; other questions (a form asking for a value) need only the task's own scope.
   */
  approvalKeys?: readonly string[];
  /**
   * How far the job is (for instance steps done of `total`), when the upstream says. A client that waits
   * for a synchronous call with a progressToken receives it as notifications/progress.
   */
  progress?: { progress: number; total?: number };
  /** Ask clients to poll more slowly (for instance when the upstream's rate budget runs low). */
  pollIntervalMs?: number;
}

/**
 * What doRespond may resolve to. An answer that leaves the question open upstream (a dismissed form, a
 * decline of a manual job, which keeps it waiting) must not count as answered: the same question then
 * takes a later answer. Without an outcome, the core counts every answer as settled except `cancel` (a
 * dismissed form decides nothing); `leftOpen`, when given, replaces that rule for this delivery.
 */
export interface RespondOutcomeV1 {
  /** The keys among the delivered answers whose question is still open upstream, waiting for an answer. */
  leftOpen?: readonly string[];
}

/** What starting a job gives back: a durable reference, already visible upstream. */
export interface StartedJobV1<Ref extends JsonValue> {
  ref: Ref;
  /**
   * The first observation, if starting produced one; saves one status read. When it is `completed` (the
   * job finished while it was being started), tools/call answers with its plain result and no task: the
   * extension's immediate-result shortcut, for clients with or without the extension.
   */
  snapshot?: JobSnapshotV1;
}

/** A tool an adapter offers. Calling it starts (or attaches to) one upstream job. */
export interface JobToolV1<Ref extends JsonValue = JsonValue, Input = any> {
  name: string;
  title?: string;
  description: string;
  /** Validated by the core before doStart; a failure is -32602 naming the field. */
  inputSchema: z.ZodType<Input>;
  /** Describes `structuredContent` of the completed result, when the adapter fills it. */
  outputSchema?: z.ZodType;
  /**
   * For clients that do not declare the tasks extension. Under `clientsWithoutTasks: handles` (the
   * default): wait this long for a quick finish and answer with the plain result, else with a handle the
   * client follows through task_status (the core uses at most 30 s, so the answer stays inside client
   * timeouts; unset means answer at once). Under `wait`: wait up to this long and answer with the plain
   * result, cancelling a job that outlives it; unset means such a client gets -32021.
   */
  synchronousWaitMs?: number;
  /**
   * Questions to ask before the job starts ("confirm before dispatching the production deploy"), through
   * the protocol's input-required result (multi round trip, 2026-07-28) rather than through a task: return
   * the requests still unanswered given the answers so far, or undefined when the job may start. A
   * question may depend on an earlier answer: the core carries earlier rounds' answers in a sealed
   * `requestState`. doStart then finds every answer in `context.inputResponses`, checked for shape only.
   * Requests the client cannot answer (it did not declare elicitation, sampling or roots on the request)
   * are left out; when none is left, the call is refused with -32021 naming the missing capability.
   * Throw InvalidToolInputError (field: "<key>.<field>") to refuse an answer's content (-32602).
   * Optional: without it the job starts at once.
   */
  inputBeforeStart?(
    input: Input,
    answers: Readonly<Record<string, StartInputResponse>>,
  ): Record<string, StartInputRequest> | undefined;
  doStart(input: Input, context: AdapterContextV1): Promise<StartedJobV1<Ref>>;
}

export interface JobAdapterV1<Ref extends JsonValue = JsonValue> {
  readonly specificationVersion: "v1";
  /** The adapter's kind ("github-actions", "aws-batch", "rest", "demo"), used in logs. */
  readonly kind: string;
  readonly tools: ReadonlyArray<JobToolV1<Ref>>;
  /** Suggested client polling interval for this upstream, in milliseconds. */
  readonly pollIntervalMs?: number;
  /**
   * How long the upstream keeps a job's record after it was created, in milliseconds (null: forever).
   * Becomes the task's ttlMs: past it, the task may be forgotten.
   */
  readonly retentionMs?: number | null;
  /**
   * The shape of this adapter's job references. When given, the server checks every ref it opens from a
   * task id against it before any `do*` method sees it, and answers a ref that does not fit (one sealed
   * by an older version of the adapter) exactly as an unknown task id: -32602 Task not found. The methods
   * receive the parsed value. Optional, and recommended for every adapter (all the built-in ones declare one):
   * without it the adapter must check its refs itself.
   */
  readonly refSchema?: z.ZodType<Ref>;
  /**
   * The credentials this adapter holds (tokens, keys, passwords), or a function that returns the current
   * ones (credentials that renew). The server removes every occurrence of them from what the adapter
   * hands back: snapshots (messages, results, errors, input requests), start results, thrown errors and
   * log entries written through `context.logger`. Values shorter than 6 characters are left alone.
   */
  readonly secrets?: readonly string[] | (() => readonly string[]);
  /**
   * Read the job's current state. Throw JobNotFoundError when the upstream no longer knows it, and
   * UpstreamError (isRetryable) for outages. Terminal answers must never change for the same ref: pin
   * whatever the upstream can re-run (an attempt number) inside the ref.
   * Retries: the server's reader alone retries a status read; send each request once and classify the
   * failure (isRetryable, retryAfterMs, isThrottled) instead of looping or waiting it out.
   */
  doGetStatus(ref: Ref, context: AdapterContextV1): Promise<JobSnapshotV1>;
  /**
   * Deliver answers to outstanding input requests. The core passes only keys that the latest snapshot
   * lists as outstanding. Throw InvalidToolInputError (field: "<key>.<field>") to refuse an answer's
   * content; the client then gets -32602. Throw UpstreamError when the upstream refuses the answer (no
   * permission), with a message saying why: the client gets it as an error and the question stays open.
   * A failure after the upstream took other answers of the same call is thrown as an
   * AnswersPartlySettledError naming those keys, so that they still count as answered.
   * Resolve to nothing, or to a RespondOutcomeV1 naming the answers that left their question open upstream
   * (see there): the core takes every other answer as settled and hides its key from the task until the
   * upstream's status catches up. Optional: an adapter without it never reports input_required.
   */
  doRespond?(
    ref: Ref,
    responses: Record<string, ElicitationResponse>,
    context: AdapterContextV1,
  ): Promise<void | RespondOutcomeV1>;
  /** Ask the upstream to cancel. Cooperative: the job may still finish. Optional. */
  doCancel?(ref: Ref, context: AdapterContextV1): Promise<void>;
  /**
   * How to receive the upstream's events about jobs (webhooks): verify a delivery and name the jobs it
   * concerns. Optional: without it the server polls, as it always does; with it polling is the safety net.
   */
  readonly events?: JobEventsV1<Ref>;
  /**
   * For an adapter that follows its upstream itself (a Kubernetes watch) and so knows of a change before any
   * read: the server calls this once, when it starts, and the adapter calls `report` for each job it sees
   * change. The change reaches the server at once: the job's cached snapshot is dropped (or replaced, with a
   * `snapshot`), and every wait on it and every listener of its tasks wakes, instead of at the first read
   * after the server's cache window. It is not an upstream delivery: the instance's jobs keep the ordinary
   * cache window, since a change the adapter does not see (a pod's reason) still needs a read. Optional.
   */
  watchJobChanges?(report: (change: JobEventV1<Ref>) => void): void;
  /** Release connections and timers when the server stops. Optional. */
  close?(): Promise<void>;
}

/** The adapter type the core accepts: any ref type. */
export type AnyJobAdapterV1 = JobAdapterV1<any>;
