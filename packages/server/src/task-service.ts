import {
  ConfigError,
  InvalidToolInputError,
  JobNotFoundError,
  TaskIdSealer,
  TaskIdTooLongError,
  UpstreamError,
  isTerminalStatus,
  toCreateTaskResult,
  toDetailedTask,
  type AdapterContext,
  type AnyJobAdapter,
  type CallToolResult,
  type CreateTaskResult,
  type DetailedTask,
  type ElicitationResponse,
  type TaskReference,
} from "@jobtasks/core";
import { toAdapterLogger, type Logger } from "./logger.js";
import { errorCodes, TaskProtocolError, taskExpired, taskNotFound, tasksExtensionRequired } from "./protocol-error.js";
import { SnapshotReader, type ReadTarget, type SnapshotReaderOptions } from "./snapshot-reader.js";
import { ToolRegistry, type AdapterInstance, type RegisteredTool } from "./tool-registry.js";
import { validateToolInput } from "./validate-tool-input.js";
import { parseElicitationResponse } from "./parse-elicitation-response.js";
import { waitForResult } from "./wait-for-result.js";
import { cancelUnsealableJob, startFailureResult } from "./start-failure.js";
import { cancelAbandonedJob } from "./cancel-abandoned-job.js";
import { immediateResult } from "./immediate-result.js";
import { askBeforeStart, type InputRequiredResult } from "./input-before-start.js";
import type { SnapshotObserver } from "./progress-notifications.js";

/** Suggested to clients when an adapter has no opinion. */
export const defaultPollIntervalMs = 2000;

export interface TaskServiceOptions extends Omit<SnapshotReaderOptions, "logger" | "now"> {
  adapters: readonly AdapterInstance[];
  sealer: TaskIdSealer;
  logger: Logger;
  /** Suggested polling interval when an adapter does not suggest one. Default 2000 ms. */
  defaultPollIntervalMs?: number;
  /**
   * Per tool name: let clients without the tasks extension call the tool, waiting up to this many
   * milliseconds for the job. Overrides the tool's own synchronousWaitMs.
   */
  synchronousWaitMs?: Readonly<Record<string, number>>;
  /** Synchronous calls (each holds a request open while it waits) served at once. Default 32. */
  maxSynchronousCalls?: number;
  now?: () => number;
}

/** Who is calling, and the request's lifetime. */
export interface CallerContext {
  principal: string;
  signal: AbortSignal;
  /**
   * tools/call only, for tools that ask before they start (multi round trip): the answers sent with this
   * request (undefined in a protocol era without it), the echoed requestState, the declared capabilities.
   */
  inputResponses?: Readonly<Record<string, unknown>> | undefined;
  requestState?: string | undefined;
  clientCapabilities?: Readonly<Record<string, unknown>> | undefined;
  /** tools/call only: sees each observation while a synchronous call waits (progress notifications). */
  observeSnapshot?: SnapshotObserver | undefined;
}

interface OpenedTask {
  taskId: string;
  reference: TaskReference;
  target: ReadTarget;
}

/**
 * The extension's semantics, independent of MCP transport and SDK: start a job as a task, and answer
 * tasks/get, tasks/update and tasks/cancel by opening the sealed id and asking the upstream.
 * Nothing about a task is stored here.
 */
export class TaskService {
  readonly registry: ToolRegistry;
  readonly #sealer: TaskIdSealer;
  readonly #reader: SnapshotReader;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #defaultPollIntervalMs: number;
  readonly #synchronousWaitMs: Readonly<Record<string, number>>;
  readonly #maxSynchronousCalls: number;
  #synchronousCalls = 0;

  constructor(options: TaskServiceOptions) {
    this.registry = new ToolRegistry(options.adapters);
    this.#sealer = options.sealer;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
    this.#defaultPollIntervalMs = options.defaultPollIntervalMs ?? defaultPollIntervalMs;
    this.#reader = new SnapshotReader({ ...options, logger: options.logger, now: this.#now });
    this.#synchronousWaitMs = options.synchronousWaitMs ?? {};
    this.#maxSynchronousCalls = options.maxSynchronousCalls ?? 32;
    for (const [index, name] of Object.keys(this.#synchronousWaitMs).entries()) {
      if (!this.registry.tool(name)) {
        const known = this.registry.tools.map((tool) => tool.tool.name).join(", ");
        throw new ConfigError(`server.synchronousWaitMs.${name}`, `no adapter offers a tool named "${name}" (entry ${index + 1}); tools: ${known}`);
      }
    }
  }

  /**
   * tools/call. With the extension declared, the answer is a task; without it, only tools that opted into
   * synchronous waiting answer (with the plain result), the others are -32021.
   */
  async callTool(
    name: string,
    args: unknown,
    caller: CallerContext & { tasksDeclared: boolean },
  ): Promise<CreateTaskResult | CallToolResult | InputRequiredResult> {
    const registered = this.registry.tool(name);
    if (!registered) throw new TaskProtocolError(errorCodes.invalidParams, `Unknown tool: ${name}`);
    const synchronousWaitMs = this.#synchronousWaitMs[name] ?? registered.tool.synchronousWaitMs;
    if (!caller.tasksDeclared && synchronousWaitMs === undefined) {
      throw tasksExtensionRequired(`tool ${name} runs as a task and`);
    }
    const input = validateToolInput(name, registered.tool.inputSchema, args);
    if (caller.tasksDeclared) return this.#start(registered, input, caller, undefined);
    if (this.#synchronousCalls >= this.#maxSynchronousCalls) {
      // Checked before starting anything: refusing costs nothing upstream.
      return {
        content: [{ type: "text", text: `The server is already waiting for ${this.#maxSynchronousCalls} synchronous calls; try again shortly, or use a client with the tasks extension.` }],
        isError: true,
      };
    }
    this.#synchronousCalls += 1;
    try {
      return await this.#start(registered, input, caller, synchronousWaitMs ?? 0);
    } finally {
      this.#synchronousCalls -= 1;
    }
  }

  /** Start the job; answer with a task, or (synchronousWaitMs given) wait for the plain result. */
  async #start(
    registered: RegisteredTool,
    input: unknown,
    caller: CallerContext,
    synchronousWaitMs: number | undefined,
  ): Promise<CreateTaskResult | CallToolResult | InputRequiredResult> {
    const name = registered.tool.name;
    const beforeStart = askBeforeStart(registered.tool, input, caller, this.#sealer, this.#now());
    if (beforeStart.kind !== "start") return beforeStart.result;
    const context = this.#adapterContext(caller, beforeStart.answers);
    const createdAt = this.#now();
    let started;
    try {
      started = await registered.tool.doStart(input, context);
    } catch (error) {
      return startFailureResult(registered, error, this.#logger);
    }
    if (context.signal.aborted) {
      // The client left while the job was being started: nobody will ever hold its task id.
      await cancelAbandonedJob({ adapterName: registered.adapterName, adapter: registered.adapter, ref: started.ref }, context, this.#logger);
      throw context.signal.reason;
    }
    const immediate = immediateResult(started.snapshot);
    if (immediate) return immediate;
    const reference: TaskReference = { adapter: registered.adapterName, tool: name, ref: started.ref, createdAt };
    const target: ReadTarget = { adapterName: registered.adapterName, adapter: registered.adapter, ref: started.ref };
    let taskId: string;
    try {
      taskId = this.#sealer.seal(reference, caller.principal);
    } catch (error) {
      if (!(error instanceof TaskIdTooLongError)) throw error;
      return cancelUnsealableJob(registered, target, context, error, this.#logger);
    }
    this.#logger.info({ tool: name, adapter: registered.adapterName, principal: caller.principal }, "task created");
    const firstSnapshot = started.snapshot ? this.#reader.remember(target, started.snapshot) : undefined;

    if (synchronousWaitMs !== undefined) {
      return waitForResult({
        logger: this.#logger,
        reader: this.#reader,
        target,
        context,
        waitMs: synchronousWaitMs,
        pollIntervalMs: this.#pollInterval(registered.adapter),
        toolName: name,
        observe: caller.observeSnapshot,
      });
    }
    // The task must be readable before we answer: a first read proves it (adapters make doStart return only
    // once the job is visible upstream) and gives the client a meaningful first status.
    const snapshot = firstSnapshot ?? (await this.#reader.read(target, context));
    return toCreateTaskResult(snapshot, this.#metadata(taskId, reference, registered.adapter));
  }

  /** tasks/get */
  async getTask(taskId: string, caller: CallerContext): Promise<DetailedTask> {
    const opened = this.#open(taskId, caller.principal);
    const snapshot = await this.#reader.read(opened.target, this.#adapterContext(caller));
    return toDetailedTask(snapshot, this.#metadata(taskId, opened.reference, opened.target.adapter));
  }

  /**
   * tasks/update. Only answers to requests the job has outstanding right now reach the adapter; the rest
   * (never issued, already answered, superseded) are ignored, as the extension asks.
   */
  async updateTask(taskId: string, inputResponses: Record<string, unknown>, caller: CallerContext): Promise<void> {
    const opened = this.#open(taskId, caller.principal);
    const { adapter } = opened.target;
    if (!adapter.doRespond) return;
    const context = this.#adapterContext(caller);
    const snapshot = await this.#reader.read(opened.target, context, { fresh: true });
    if (snapshot.status !== "input_required" || !snapshot.inputRequests) return;
    const answers: Record<string, ElicitationResponse> = {};
    for (const key of Object.keys(snapshot.inputRequests)) {
      if (!Object.hasOwn(inputResponses, key)) continue;
      answers[key] = parseElicitationResponse(key, inputResponses[key]);
    }
    if (Object.keys(answers).length === 0) return;
    const respond = adapter.doRespond.bind(adapter);
    await this.#act("deliver the answer", opened, () => respond(opened.target.ref, answers, context));
  }

  /** tasks/cancel. An acknowledgement, not a promise: the job may still finish first. */
  async cancelTask(taskId: string, caller: CallerContext): Promise<void> {
    const opened = this.#open(taskId, caller.principal);
    const { adapter } = opened.target;
    const context = this.#adapterContext(caller);
    const snapshot = await this.#reader.read(opened.target, context);
    if (isTerminalStatus(snapshot.status)) return;
    if (!adapter.doCancel) {
      this.#logger.info({ adapter: opened.reference.adapter }, "cancel requested for an adapter that cannot cancel");
      return;
    }
    const cancel = adapter.doCancel.bind(adapter);
    await this.#act("request cancellation", opened, () => cancel(opened.target.ref, context));
  }

  /** Whether a caller may use a task id (it opens, its adapter exists, it has not expired). No upstream call. */
  canOpen(taskId: string, principal: string): boolean {
    try {
      this.#open(taskId, principal);
      return true;
    } catch {
      return false;
    }
  }

  /** Open a task id for a caller, or answer exactly as for a task that does not exist. */
  #open(taskId: unknown, principal: string): OpenedTask {
    if (typeof taskId !== "string") throw taskNotFound();
    const reference = this.#sealer.open(taskId, principal);
    if (!reference) throw taskNotFound();
    const adapter = this.registry.adapter(reference.adapter);
    if (!adapter) {
      this.#logger.warn({ adapter: reference.adapter }, "task id names an adapter this server does not have");
      throw taskNotFound();
    }
    const ttlMs = adapter.retentionMs ?? null;
    if (ttlMs !== null && this.#now() > reference.createdAt + ttlMs) throw taskExpired();
    return { taskId, reference, target: { adapterName: reference.adapter, adapter, ref: reference.ref } };
  }

  async #act(what: string, opened: OpenedTask, action: () => Promise<void>): Promise<void> {
    // Sent once: answering a question or cancelling may not be idempotent upstream (a second approval
    // POST), and the client may send tasks/update or tasks/cancel again; outstanding keys keep that safe.
    try {
      await action();
    } catch (error) {
      if (error instanceof JobNotFoundError) throw taskNotFoundUpstream(what);
      // An adapter refusing an answer's content (a field of the wrong type) is the client's to fix.
      if (error instanceof InvalidToolInputError) {
        throw new TaskProtocolError(errorCodes.invalidParams, `Invalid params: inputResponses: ${error.field}: ${error.problem}`, { field: error.field });
      }
      const reason = error instanceof UpstreamError ? error.message : "an unexpected error in the adapter";
      if (!(error instanceof UpstreamError)) this.#logger.error({ err: error, adapter: opened.reference.adapter }, `could not ${what}`);
      throw new TaskProtocolError(errorCodes.internalError, `Could not ${what}: ${reason}`);
    } finally {
      this.#reader.invalidate(opened.target);
    }
  }

  #adapterContext(caller: CallerContext, inputResponses?: AdapterContext["inputResponses"]): AdapterContext {
    return {
      signal: caller.signal,
      principal: caller.principal,
      logger: toAdapterLogger(this.#logger),
      ...(inputResponses ? { inputResponses } : {}),
    };
  }

  #pollInterval(adapter: AnyJobAdapter): number {
    return adapter.pollIntervalMs ?? this.#defaultPollIntervalMs;
  }

  #metadata(taskId: string, reference: TaskReference, adapter: AnyJobAdapter) {
    return {
      taskId,
      createdAt: reference.createdAt,
      ttlMs: adapter.retentionMs ?? null,
      pollIntervalMs: this.#pollInterval(adapter),
      now: this.#now(),
    };
  }

  /** Release adapters' connections. */
  async close(): Promise<void> {
    await Promise.allSettled(this.registry.adapters.map((adapter) => adapter.close?.()));
  }
}

function taskNotFoundUpstream(what: string): TaskProtocolError {
  return new TaskProtocolError(errorCodes.internalError, `Could not ${what}: the upstream job can no longer be found`);
}
