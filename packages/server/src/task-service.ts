import {
  AnswersPartlySettledError,
  InvalidToolInputError,
  JobNotFoundError,
  UpstreamError,
  isTerminalStatus,
  type AdapterContext,
  type AdapterLogger,
  type AnyJobAdapter,
  type CallToolResult,
  type ElicitationResponse,
  type JobSnapshot,
  type JsonValue,
  settledAnswerKeys,
} from "@jobtasks/core";
import { type TaskIdSealer, TaskIdTooLongError, type TaskReference } from "./task-id.js";
import { toCreateTaskResult, toDetailedTask, type CreateTaskResult, type DetailedTask } from "./task-shape.js";
import { toAdapterLogger, type Logger } from "./logger.js";
import { errorCodes, TaskProtocolError, taskExpired, taskNotFound, tasksExtensionRequired } from "./protocol-error.js";
import { SnapshotReader, type ReadTarget, type SnapshotReaderOptions } from "./snapshot-reader.js";
import { ToolRegistry, type AdapterInstance, type RegisteredTool } from "./tool-registry.js";
import { validateToolInput } from "./validate-tool-input.js";
import { readAdapterRef } from "./adapter-ref.js";
import { parseElicitationResponse } from "./parse-elicitation-response.js";
import { AnswerLedger } from "./answer-ledger.js";
import { jobIdentity } from "./job-identity.js";
import { hideAnsweredRequests } from "./hide-answered-requests.js";
import { SynchronousCalls } from "./synchronous-calls.js";
import { cancelUnservableJob, startFailureResult } from "./start-failure.js";
import { cancelAbandonedJob } from "./cancel-abandoned-job.js";
import { HandleTools, type HandleCaller } from "./handle-tools.js";
import { isHandleToolName } from "./handle-tool-definitions.js";
import { realSleep, type LookBounds } from "./wait-for-task-change.js";
import { deepFreeze, MemoizedTaskIdOpener, type TaskIdOpener } from "./memoized-task-id-opener.js";
import type { ToolDescriptor } from "./tool-registry.js";
import {
  maxQuickFinishWaitMs,
  refuseHandleToolNames,
  toolsListedWithHandles,
  type ClientsWithoutTasks,
} from "./clients-without-tasks.js";
import { immediateResult } from "./immediate-result.js";
import { askBeforeStart, type InputRequiredResult } from "./input-before-start.js";
import type { SnapshotObserver } from "./progress-notifications.js";
import { JobChanges } from "./job-changes.js";
import type { EventEffect, ReadOptions } from "./snapshot-reader.js";
import { noSharedState, type SharedState } from "./shared-state.js";
import { AccessPolicy, missingScopes, type GrantedScopes } from "./access-policy.js";
import { approvalRefused, insufficientScope } from "./access-refusals.js";
import { Readiness } from "./readiness.js";
import { Telemetry } from "./telemetry.js";
import type { RequestSpan } from "./request-span.js";
import { observedAdapter } from "./observed-adapter.js";
import { createUpstreamRequestObserver } from "./upstream-request-telemetry.js";
import { setUpstreamRequestObserver } from "@jobtasks/core/adapter-utils";

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
  /** What clients without the tasks extension get. Default "handles". */
  clientsWithoutTasks?: ClientsWithoutTasks;
  /**
   * Let task_status put a job's question to the user as an elicitation form, when the client declared form
   * elicitation on a connection that carries server requests (stdio). Default false: the question goes to
   * the model, which answers it with task_answer. Off by default because a host may declare forms and
   * decline every one unseen (Codex's `codex exec` does, within milliseconds), which would refuse an
   * approval nobody saw.
   */
  formsFromTaskStatus?: boolean;
  /** task_status waits (and quick-finish waits) held open at once; beyond it they answer at once. Default 256. */
  maxWaitingCalls?: number;
  /**
   * Each principal's share of those: past it, a principal's waits answer at once unless that many slots
   * would still stay free for the others. Default a quarter of maxWaitingCalls.
   */
  maxWaitingCallsPerPrincipal?: number;
  now?: () => number;
  /** How the handle tools pause between reads (rejecting on abort); with `now`, a simulated clock for benchmarks. */
  sleep?: (milliseconds: number, signal: AbortSignal) => Promise<void>;
  /**
   * What the service records through OpenTelemetry. Default: decided from the SDK registered when the
   * service is built (nothing registered, nothing recorded). Register the SDK first.
   */
  telemetry?: Telemetry;
  /** Opened tasks remembered (keyed by principal and id), so that a poller's id is deciphered and parsed once. Default 1024; 0 turns it off. */
  memoizedTaskIds?: number;
  /**
   * What replicas share (snapshots, answers, holds, deliveries, events; see shared-state.ts). Default:
   * nothing, one process. The caller that made it closes it.
   */
  sharedState?: SharedState;
  /** Which scopes each tool, its tasks and approvals need. Default: none. */
  access?: AccessPolicy;
}

/** Who is calling, and the request's lifetime. */
export interface CallerContext {
  principal: string;
  /** The caller's scopes; absent, every scope (stdio, no authentication). */
  scopes?: GrantedScopes;
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
  /**
   * The span of the MCP request, when it is handed over rather than made the active context (a poll's,
   * which may never start: RequestSpan). Telemetry only.
   */
  requestSpan?: RequestSpan | undefined;
}

/** What an upstream event did to a job, with the job's key (job-identity.ts) when its ref read as one. */
export type AppliedJobEvent =
  | { job: string; effect: EventEffect }
  | { job?: undefined; effect: "ignored: not a job reference of this adapter" };

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
  /** What /readyz answers: adapters' credentials, and the checks other parts register. */
  readonly readiness = new Readiness();
  readonly telemetry: Telemetry;
  readonly #sealer: TaskIdSealer;
  /** Opens ids to tasks through a bounded memo: pollers send the same id again and again. */
  readonly #opener: TaskIdOpener<OpenedTask>;
  readonly #reader: SnapshotReader;
  readonly #logger: Logger;
  /** The view of the logger adapters get, in every AdapterContext. */
  readonly #adapterLogger: AdapterLogger;
  readonly #now: () => number;
  readonly #defaultPollIntervalMs: number;
  readonly #synchronous: SynchronousCalls;
  readonly clientsWithoutTasks: ClientsWithoutTasks;
  readonly #handles: HandleTools;
  readonly #formsFromTaskStatus: boolean;
  readonly #answers: AnswerLedger;
  /** The waits on each job, woken by its upstream events. */
  readonly #changes = new JobChanges();
  /** What this replica shares with the others (nothing by default). */
  readonly sharedState: SharedState;
  readonly access: AccessPolicy;

  constructor(options: TaskServiceOptions) {
    const telemetry = (this.telemetry = options.telemetry ?? new Telemetry());
    this.registry = new ToolRegistry(options.adapters, (adapter, instance) =>
      observedAdapter(adapter, instance, this.readiness, telemetry),
    );
    this.access = options.access ?? new AccessPolicy();
    this.access.check(
      this.registry.tools.map((registered) => registered.tool.name),
      options.adapters.map((adapter) => adapter.name),
    );
    this.#sealer = options.sealer;
    const opener: TaskIdOpener<OpenedTask> = { open: (taskId, principal) => this.#openUnmemoized(taskId, principal) };
    this.#opener = options.memoizedTaskIds === 0 ? opener : new MemoizedTaskIdOpener(opener, options.memoizedTaskIds);
    this.#logger = options.logger;
    this.#adapterLogger = toAdapterLogger(options.logger);
    this.#now = options.now ?? Date.now;
    this.#defaultPollIntervalMs = options.defaultPollIntervalMs ?? defaultPollIntervalMs;
    this.sharedState = options.sharedState ?? noSharedState;
    this.#reader = new SnapshotReader({
      ...options,
      telemetry,
      logger: options.logger,
      now: this.#now,
      sharedSnapshots: this.sharedState.snapshots,
    });
    // An event another replica received reaches this one's caches and waits as if it had come here.
    this.sharedState.events.subscribe((event) => {
      for (const job of event.jobs) this.applyJobEvent(event.instance, job);
    });
    // Changes an adapter sees itself (its own watch of the upstream): each replica's adapter watches, so they
    // are neither shared nor counted as deliveries.
    for (const { name, adapter } of this.registry.instances)
      adapter.watchJobChanges?.((change) => this.applyJobEvent(name, change, { delivered: false }));
    this.clientsWithoutTasks = options.clientsWithoutTasks ?? "handles";
    this.#formsFromTaskStatus = options.formsFromTaskStatus ?? false;
    this.#answers = new AnswerLedger({ now: this.#now });
    if (this.clientsWithoutTasks === "handles") refuseHandleToolNames(options.adapters);
    this.#handles = new HandleTools(
      {
        getTask: (taskId, caller, bounds) => this.getTask(taskId, caller, bounds),
        updateTask: (taskId, inputResponses, caller) => this.updateTask(taskId, inputResponses, caller),
        cancelTask: (taskId, caller) => this.cancelTask(taskId, caller),
        describeTask: (taskId, principal) => this.#describe(taskId, principal),
        wasAnswered: (taskId, key, principal) => this.wasAnswered(taskId, key, principal),
        whenChanged: (taskId, principal, signal) => this.whenChanged(taskId, principal, signal),
      },
      {
        maxWaitingCalls: options.maxWaitingCalls ?? 256,
        ...(options.maxWaitingCallsPerPrincipal !== undefined
          ? { maxWaitingCallsPerPrincipal: options.maxWaitingCallsPerPrincipal }
          : {}),
        slowUpstreamAnswerMs: this.#reader.slowUpstreamAnswerMs,
        now: this.#now,
        sleep: options.sleep ?? realSleep,
      },
    );
    this.#synchronous = new SynchronousCalls(this.registry, options);
    if (telemetry.enabled) this.#observeGauges(telemetry);
  }

  #observeGauges(telemetry: Telemetry): void {
    setUpstreamRequestObserver(createUpstreamRequestObserver(telemetry));
    telemetry.gauge(
      "jobtasks.upstream.holds.active",
      { description: "Jobs whose polls are answered from memory until the upstream's Retry-After ends", unit: "{job}" },
      (report) => report(this.#reader.activeHolds),
    );
    telemetry.gauge(
      "jobtasks.waits.open",
      { description: "task_status and quick-finish waits held open", unit: "{wait}" },
      (report) => report(this.#handles.openWaits),
    );
  }

  /** A snapshot read, in its telemetry span (a child of `request`'s span, when the request handed it over). */
  #read(
    target: ReadTarget,
    context: AdapterContext,
    options: ReadOptions = {},
    request?: RequestSpan,
  ): Promise<JobSnapshot> {
    if (!this.telemetry.enabled) return this.#reader.read(target, context, options);
    return this.telemetry.snapshotRead(
      target.instance,
      (observer) => this.#reader.read(target, context, { ...options, observer }),
      request,
    );
  }

  /**
   * tools/list. A request without the extension, when handles are on, also sees the three handle tools, and
   * the job tools without their output schemas: a client checks structuredContent against them, and a
   * handle is not the job's result.
   */
  listTools(tasksDeclared: boolean, scopes?: GrantedScopes): ToolDescriptor[] {
    // Only the tools the caller may call: a tool it cannot call is no choice for its model.
    const descriptors = this.registry.tools
      .filter((registered) => missingScopes(this.access.toolScopes(registered.tool.name), scopes).length === 0)
      .map((registered) => registered.descriptor);
    if (tasksDeclared || this.clientsWithoutTasks !== "handles") return descriptors;
    return toolsListedWithHandles(descriptors);
  }

  /**
   * tools/call. With the extension declared, the answer is a task. Without it, by clientsWithoutTasks: a
   * handle (or the result of a quick finish), the plain result of a tool that opted into synchronous
   * waiting, or -32021.
   */
  async callTool(
    name: string,
    args: unknown,
    caller: CallerContext & { tasksDeclared: boolean } & Pick<HandleCaller, "onProgress" | "askUser">,
  ): Promise<CreateTaskResult | CallToolResult | InputRequiredResult> {
    if (this.clientsWithoutTasks === "handles" && isHandleToolName(name)) {
      const { askUser: _askUser, ...withoutForms } = caller;
      return this.#handles.call(name, args, this.#formsFromTaskStatus ? caller : withoutForms);
    }
    const registered = this.registry.tool(name);
    if (!registered) throw new TaskProtocolError(errorCodes.invalidParams, `Unknown tool: ${name}`);
    this.#requireToolScopes(name, caller.scopes, `tool ${name}`);
    const synchronousWaitMs = this.#synchronous.waitMsFor(name, registered.tool.synchronousWaitMs);
    const mode = this.clientsWithoutTasks;
    if (!caller.tasksDeclared && (mode === "refuse" || (mode === "wait" && synchronousWaitMs === undefined))) {
      throw tasksExtensionRequired(`tool ${name} runs as a task and`);
    }
    const input = validateToolInput(name, registered.tool.inputSchema, args);
    if (caller.tasksDeclared) return this.#start(registered, input, caller, undefined);
    if (mode === "handles")
      return this.#start(registered, input, caller, undefined, Math.min(synchronousWaitMs ?? 0, maxQuickFinishWaitMs));
    return this.#synchronous.admit(() => this.#start(registered, input, caller, synchronousWaitMs ?? 0));
  }

  /**
   * Start the job; answer with a task, or (synchronousWaitMs given) wait for the plain result, or
   * (quickFinishWaitMs given) answer with a handle unless the job finishes that soon after the call.
   */
  async #start(
    registered: RegisteredTool,
    input: unknown,
    caller: CallerContext,
    synchronousWaitMs: number | undefined,
    quickFinishWaitMs?: number,
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
      await cancelAbandonedJob(
        { instance: registered.instance, adapter: registered.adapter, ref: started.ref },
        context,
        this.#logger,
      );
      throw context.signal.reason;
    }
    const immediate = immediateResult(started.snapshot);
    if (immediate) return immediate;
    const reference: TaskReference = { instance: registered.instance, tool: name, ref: started.ref, createdAt };
    // The ref as the adapter's refSchema reads it, as every later open of the id reads it.
    const ref = readAdapterRef(registered.adapter, started.ref);
    const target: ReadTarget = { instance: registered.instance, adapter: registered.adapter, ref: ref ?? started.ref };
    if (ref === undefined) {
      // Every later read of this id would open a ref the adapter's own refSchema refuses, and answer Task
      // not found: a task that could never be followed. Say so now, and stop the job nobody can follow.
      const error = new Error("the adapter handed back a job reference that its own refSchema refuses");
      return cancelUnservableJob(
        registered,
        target,
        context,
        error,
        this.#logger,
        "job reference refused by refSchema",
      );
    }
    let taskId: string;
    try {
      taskId = this.#sealer.seal(reference, caller.principal);
    } catch (error) {
      if (!(error instanceof TaskIdTooLongError)) throw error;
      return cancelUnservableJob(registered, target, context, error, this.#logger);
    }
    this.#logger.info({ tool: name, adapter: registered.instance, principal: caller.principal }, "task created");
    this.telemetry.instruments?.tasksStarted.add(1, {
      "gen_ai.tool.name": name,
      "jobtasks.adapter.instance": registered.instance,
    });
    const firstSnapshot = started.snapshot ? this.#reader.remember(target, started.snapshot) : undefined;

    if (synchronousWaitMs !== undefined) {
      return this.#synchronous.waitForResult({
        logger: this.#logger,
        reader: this.#reader,
        target,
        context,
        waitMs: synchronousWaitMs,
        pollIntervalMs: this.#pollInterval(registered.adapter),
        toolName: name,
        observe: caller.observeSnapshot,
        changed: (signal) => this.#changes.next(jobIdentity(target).job, signal),
      });
    }
    if (quickFinishWaitMs !== undefined) {
      try {
        return await this.#handles.firstAnswer({
          read: async (bounds) => {
            const snapshot = await this.#read(target, context, bounds);
            // The quick-finish wait is a synchronous call too: its client may follow the job's progress.
            await caller.observeSnapshot?.(snapshot);
            return toDetailedTask(snapshot, this.#metadata(taskId, reference, registered.adapter));
          },
          // Counted from the call, so the start's own time is inside the bound.
          waitMs: Math.max(0, createdAt + quickFinishWaitMs - this.#now()),
          principal: caller.principal,
          signal: context.signal,
          toolName: name,
          pollIntervalMs: this.#pollInterval(registered.adapter),
          changed: (signal) => this.#changes.next(jobIdentity(target).job, signal),
        });
      } catch (error) {
        // Only a client that left before it got the id abandons the job; a long one is never cancelled.
        if (context.signal.aborted) await cancelAbandonedJob(target, context, this.#logger);
        throw error;
      }
    }
    // The task must be readable before we answer: a first read proves it (adapters make doStart return only
    // once the job is visible upstream) and gives the client a meaningful first status.
    const snapshot = firstSnapshot ?? (await this.#read(target, context));
    return toCreateTaskResult(snapshot, this.#metadata(taskId, reference, registered.adapter));
  }

  /**
   * tasks/get. Questions this process already answered are left out while the upstream catches up;
   * `bounds` narrow how long it waits for the upstream (see SnapshotReader.read).
   */
  async getTask(taskId: string, caller: CallerContext, bounds?: LookBounds): Promise<DetailedTask> {
    const opened = this.#openFor(taskId, caller);
    const snapshot = await this.#read(opened.target, this.#adapterContext(caller), bounds, caller.requestSpan);
    // Said here too: the fast path's answer is written before its request's telemetry sees a task.
    caller.requestSpan?.setAttribute("jobtasks.task.status", snapshot.status);
    this.telemetry.instruments?.taskReads.add(opened.reference.instance, snapshot.status);
    const job = jobIdentity(opened.target).job;
    let answered = this.#answers.answered(job);
    // Questions another replica answered count too; asked only when there is a question to hide.
    if (snapshot.status === "input_required" && snapshot.inputRequests) {
      const elsewhere = await this.sharedState.answers.settled(job, Object.keys(snapshot.inputRequests));
      if (elsewhere.size > 0) answered = new Set([...answered, ...elsewhere]);
    }
    return toDetailedTask(
      hideAnsweredRequests(snapshot, answered),
      this.#metadata(taskId, opened.reference, opened.target.adapter),
    );
  }

  /**
   * tasks/update. Only answers to requests the job has outstanding right now reach the adapter; the rest
   * (never issued, already answered, superseded) are ignored, as the extension asks. Answers to one task
   * are delivered one at a time, and keys answered from this process count as answered even while the
   * upstream still lists them (see AnswerLedger). Only answers that settled their question count so
   * (settledAnswerKeys): a dismissed form, or an answer the adapter reports as left open, leaves the key
   * open for a later answer. Resolves to the keys delivered to the adapter.
   */
  async updateTask(taskId: string, inputResponses: Record<string, unknown>, caller: CallerContext): Promise<string[]> {
    const opened = this.#openFor(taskId, caller);
    const { adapter } = opened.target;
    if (!adapter.doRespond) return [];
    const respond = adapter.doRespond.bind(adapter);
    const ledgerKey = jobIdentity(opened.target).job;
    return this.#answers.serialise(ledgerKey, async () => {
      const context = this.#adapterContext(caller);
      const snapshot = await this.#read(opened.target, context, { fresh: true });
      if (snapshot.status !== "input_required" || !snapshot.inputRequests) return [];
      const answered = this.#answers.answered(ledgerKey);
      const answers: Record<string, ElicitationResponse> = {};
      for (const [key, request] of Object.entries(snapshot.inputRequests)) {
        if (!Object.hasOwn(inputResponses, key) || answered.has(key)) continue;
        answers[key] = parseElicitationResponse(key, inputResponses[key], request);
      }
      this.#requireApprovalScope(opened, snapshot, Object.keys(answers), caller.scopes);
      if (Object.keys(answers).length === 0) return [];
      // Across replicas: a key another replica is answering (or answered) now is left to it.
      const claimed = new Set(await this.sharedState.answers.claim(ledgerKey, Object.keys(answers)));
      for (const key of Object.keys(answers)) if (!claimed.has(key)) delete answers[key];
      if (claimed.size === 0) return [];
      // What was not settled is released, so that a later answer (here or on another replica) may go.
      const settled = new Set<string>();
      const settle = (keys: readonly string[]) => {
        this.#answers.remember(ledgerKey, keys);
        for (const key of keys) settled.add(key);
        this.sharedState.answers.settle(ledgerKey, keys, this.#answers.rememberMs);
      };
      const releaseUnsettled = () =>
        this.sharedState.answers.release(
          ledgerKey,
          [...claimed].filter((key) => !settled.has(key)),
        );
      let outcome: unknown;
      try {
        await this.#act("deliver the answer", opened, async () => {
          try {
            outcome = await respond(opened.target.ref, answers, context);
          } catch (error) {
            // Answers the upstream took before another failed are settled all the same: sent once.
            if (!(error instanceof AnswersPartlySettledError)) throw error;
            const taken = new Set(error.settledKeys);
            settle(Object.keys(answers).filter((key) => taken.has(key)));
            throw error.cause;
          }
        });
      } catch (error) {
        releaseUnsettled();
        throw error;
      }
      settle(settledAnswerKeys(answers, outcome));
      releaseUnsettled();
      return Object.keys(answers);
    });
  }

  /** Whether this process delivered an answer to the task's question `key` (and still remembers it). */
  wasAnswered(taskId: string, key: string, principal: string): boolean {
    const opened = this.#open(taskId, principal);
    return this.#answers.answered(jobIdentity(opened.target).job).has(key);
  }

  /** tasks/cancel. An acknowledgement, not a promise: the job may still finish first. */
  async cancelTask(taskId: string, caller: CallerContext): Promise<void> {
    const opened = this.#openFor(taskId, caller);
    const { adapter } = opened.target;
    const context = this.#adapterContext(caller);
    const snapshot = await this.#read(opened.target, context);
    if (isTerminalStatus(snapshot.status)) return;
    if (!adapter.doCancel) {
      this.#logger.info({ adapter: opened.reference.instance }, "cancel requested for an adapter that cannot cancel");
      return;
    }
    const cancel = adapter.doCancel.bind(adapter);
    await this.#act("request cancellation", opened, () => cancel(opened.target.ref, context));
  }

  /**
   * Resolves when the upstream reports a change of the task's job (an event), for waits to look again at
   * once; never when none comes before `signal` aborts, nor for an id that no longer opens (the wait's own
   * next read reports that).
   */
  whenChanged(taskId: string, principal: string, signal: AbortSignal): Promise<void> {
    let key: string;
    try {
      key = jobIdentity(this.#open(taskId, principal).target).job;
    } catch {
      return new Promise<void>(() => undefined);
    }
    return this.#changes.next(key, signal);
  }

  /**
   * An upstream event about a job of adapter instance `instance`: its cached snapshot is replaced or
   * dropped (see SnapshotReader.applyEvent), then every wait on the job wakes. The job is the key: any
   * task of it, whoever created it, sees the change. Undefined when no such instance exists.
   */
  applyJobEvent(
    instance: string,
    event: { ref: unknown; snapshot?: JobSnapshot; updatedAt?: string },
    { delivered = true }: { delivered?: boolean } = {},
  ): AppliedJobEvent | undefined {
    const adapter = this.registry.adapter(instance);
    if (!adapter) return undefined;
    const ref = readAdapterRef(adapter, event.ref as JsonValue);
    if (ref === undefined) return { effect: "ignored: not a job reference of this adapter" };
    const target: ReadTarget = { instance, adapter, ref };
    const { job } = jobIdentity(target);
    const effect = this.#reader.applyEvent(
      target,
      {
        ...(event.snapshot !== undefined ? { snapshot: event.snapshot } : {}),
        ...(event.updatedAt !== undefined ? { updatedAt: event.updatedAt } : {}),
      },
      { delivered },
    );
    if (!effect.startsWith("ignored")) this.#changes.notify(job);
    return { job, effect };
  }

  /**
   * A delivery to adapter instance `instance` verified, whatever it concerns: its upstream events arrive, so
   * every job of it is answered from its cached snapshot between events (see event-windows.ts).
   */
  noteVerifiedDelivery(instance: string): void {
    this.#reader.noteDelivery(instance);
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

  /**
   * The scopes a caller lacks for a task (those of the tool that started it), without an upstream call;
   * undefined when the id does not open for the caller (the request then answers Task not found itself).
   */
  missingTaskScopes(taskId: string, caller: Pick<CallerContext, "principal" | "scopes">): string[] | undefined {
    let opened: OpenedTask;
    try {
      opened = this.#open(taskId, caller.principal);
    } catch {
      return undefined;
    }
    return missingScopes(this.access.toolScopes(opened.reference.tool), caller.scopes);
  }

  /** Open a task for a caller that must also hold the scopes of the tool that started it. */
  #openFor(taskId: unknown, caller: CallerContext): OpenedTask {
    const opened = this.#open(taskId, caller.principal);
    this.#requireToolScopes(opened.reference.tool, caller.scopes, `tasks of ${opened.reference.tool}`);
    return opened;
  }

  #requireToolScopes(toolName: string, scopes: GrantedScopes, what: string): void {
    const missing = missingScopes(this.access.toolScopes(toolName), scopes);
    if (missing.length > 0) throw insufficientScope(what, missing);
  }

  /** An answer to an approval needs the approval scope of the task's adapter instance, whoever asks. */
  #requireApprovalScope(
    opened: OpenedTask,
    snapshot: JobSnapshot,
    answering: readonly string[],
    scopes: GrantedScopes,
  ): void {
    const scope = this.access.approvalScope(opened.reference.instance);
    if (scope === undefined || missingScopes([scope], scopes).length === 0) return;
    const approvals = new Set(snapshot.approvalKeys ?? []);
    // A marking that names no question here (redaction rewrites approvalKeys' strings, never the keys of
    // inputRequests; an adapter's slip) cannot say which question is not an approval: all of them are.
    const questions = snapshot.inputRequests ?? {};
    const unmatched = [...approvals].some((marked) => !Object.hasOwn(questions, marked));
    const key = answering.find((answered) => unmatched || approvals.has(answered));
    if (key === undefined) return;
    throw approvalRefused(opened.reference.tool, key, scope, snapshot.inputRequests?.[key]);
  }

  /** For the handle tools' texts: which tool started a task, and how often its adapter suggests polling. */
  #describe(taskId: string, principal: string): { toolName: string; pollIntervalMs: number } {
    const opened = this.#open(taskId, principal);
    return { toolName: opened.reference.tool, pollIntervalMs: this.#pollInterval(opened.target.adapter) };
  }

  /** Open a task id for a caller, or answer exactly as for a task that does not exist. */
  #open(taskId: unknown, principal: string): OpenedTask {
    if (typeof taskId !== "string") throw taskNotFound();
    const opened = this.#opener.open(taskId, principal);
    if (!opened) throw taskNotFound();
    // The one part of opening that changes with time, so it is never remembered.
    const ttlMs = opened.target.adapter.retentionMs ?? null;
    if (ttlMs !== null && this.#now() > opened.reference.createdAt + ttlMs) throw taskExpired();
    return opened;
  }

  /** The id's reference, its adapter and the ref its refSchema reads, or undefined when one of them fails. */
  #openUnmemoized(taskId: string, principal: string): OpenedTask | undefined {
    const reference = this.#sealer.open(taskId, principal);
    if (!reference) return undefined;
    const adapter = this.registry.adapter(reference.instance);
    if (!adapter) {
      this.#logger.warn({ adapter: reference.instance }, "task id names an adapter this server does not have");
      return undefined;
    }
    const ref = readAdapterRef(adapter, reference.ref);
    if (ref === undefined) {
      this.#logger.warn({ adapter: reference.instance }, "task id holds a ref its adapter's refSchema refuses");
      return undefined;
    }
    // Shared by every later open of the id (the memo), so frozen; the adapter itself is not ours to freeze.
    const target = Object.freeze({ instance: reference.instance, adapter, ref: deepFreeze(ref) });
    return Object.freeze({ taskId, reference: deepFreeze(reference), target });
  }

  async #act(what: string, opened: OpenedTask, action: () => Promise<void>): Promise<void> {
    // Sent once: answering a question or cancelling may not be idempotent upstream (a second approval
    // POST), and the client may send tasks/update or tasks/cancel again; outstanding keys keep that safe.
    try {
      await action();
    } catch (error) {
      // The same answer tasks/get gives for a job the upstream no longer knows (see SnapshotReader.read).
      if (error instanceof JobNotFoundError) throw taskExpired();
      // An adapter refusing an answer's content (a field of the wrong type) is the client's to fix.
      if (error instanceof InvalidToolInputError) {
        throw new TaskProtocolError(
          errorCodes.invalidParams,
          `Invalid params: inputResponses: ${error.field}: ${error.problem}`,
          { field: error.field },
        );
      }
      const reason = error instanceof UpstreamError ? error.message : "an unexpected error in the adapter";
      if (!(error instanceof UpstreamError))
        this.#logger.error({ err: error, adapter: opened.reference.instance }, `could not ${what}`);
      throw new TaskProtocolError(errorCodes.internalError, `Could not ${what}: ${reason}`);
    } finally {
      this.#reader.invalidate(opened.target);
    }
  }

  #adapterContext(caller: CallerContext, inputResponses?: AdapterContext["inputResponses"]): AdapterContext {
    return {
      signal: caller.signal,
      principal: caller.principal,
      logger: this.#adapterLogger,
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

  /**
   * The server is stopping: every open task_status and quick-finish wait answers now with the task as last
   * seen, and later ones answer without waiting. Resolves once the open ones have answered, or after
   * boundMs (default 5 s) when one is held by an upstream that does not answer.
   */
  stopWaiting(boundMs = 5_000): Promise<void> {
    return this.#handles.stopWaiting(boundMs);
  }

  /** Release adapters' connections. */
  async close(): Promise<void> {
    await Promise.allSettled(this.registry.adapters.map((adapter) => adapter.close?.()));
  }
}
