import { isTerminalStatus, type CallToolResult, type ElicitationResponse, type InputRequest } from "@jobtasks/core";
import { type DetailedTask } from "./task-shape.js";
import { TaskProtocolError } from "./protocol-error.js";
import { invalidArguments, validateToolInput } from "./validate-tool-input.js";
import { waitForTaskChange, type LookBounds } from "./wait-for-task-change.js";
import { checkFormAnswer, unsafeFieldName } from "./check-form-answer.js";
import {
  answerAgainNext,
  answerNext,
  firstAnswer,
  followWithStatus,
  statusAnswer,
  stillDelivering,
  text,
  toolError,
  type HandleView,
} from "./handle-results.js";
import type { GrantedScopes } from "./access-policy.js";
import { defaultStatusWaitSeconds, handleToolInputSchemas, type HandleToolName } from "./handle-tool-definitions.js";

/** Who calls a handle tool; onProgress receives status messages while task_status waits. */
export interface HandleCaller {
  principal: string;
  /** The caller's scopes (absent: every scope); a task's operations need the scopes of its tool. */
  scopes?: GrantedScopes;
  signal: AbortSignal;
  onProgress?: (message: string) => void;
  /**
   * Present when the client can show a form itself (it declared elicitation on a connection that can carry
   * a server request): task_status then puts the job's question to the user directly. Resolves to the
   * user's answer; rejects or times out when there is none.
   */
  askUser?: (request: InputRequest, timeoutMs: number) => Promise<ElicitationResponse>;
}

/** The task operations the handle tools are built on: the very ones tasks/get, tasks/update and tasks/cancel use. */
export interface TaskOperations {
  getTask(taskId: string, caller: HandleCaller, bounds?: LookBounds): Promise<DetailedTask>;
  /** Resolves to the keys whose answers reached the upstream. */
  updateTask(taskId: string, inputResponses: Record<string, unknown>, caller: HandleCaller): Promise<string[]>;
  cancelTask(taskId: string, caller: HandleCaller): Promise<void>;
  /** The tool that started a task and its adapter's polling interval; throws as tasks/get would for an unusable id. */
  describeTask(taskId: string, principal: string): { toolName: string; pollIntervalMs: number };
  /** Whether this process already delivered an answer to the question (see AnswerLedger). */
  wasAnswered(taskId: string, key: string, principal: string): boolean;
  /** Resolves when the task's job reports a change (an upstream event): a wait then looks again at once. */
  whenChanged?(taskId: string, principal: string, signal: AbortSignal): Promise<void>;
}

export interface HandleToolsOptions {
  /** Waits (task_status, a job tool's quick-finish wait) held open at once; beyond it they answer without waiting. */
  maxWaitingCalls: number;
  /**
   * Each principal's share of those: within it a principal may take any free slot; past it, only while
   * that many slots stay free for the others, so that one busy caller cannot make every other caller's
   * waits answer "busy" at once. Default: a quarter of maxWaitingCalls (at least 1).
   */
  maxWaitingCallsPerPrincipal?: number;
  /** The reader's bound on waiting for the upstream; task_cancel answers within it too. */
  slowUpstreamAnswerMs: number;
  now: () => number;
  sleep: (milliseconds: number, signal: AbortSignal) => Promise<void>;
}

/**
 * task_status, task_answer and task_cancel: the task operations as plain tools, over the same sealed ids,
 * for clients that do not declare the tasks extension. Every failure is a tool error the model can read;
 * invalid arguments are refused before any upstream call.
 */
export class HandleTools {
  readonly #tasks: TaskOperations;
  readonly #options: HandleToolsOptions;
  readonly #perPrincipalLimit: number;
  #waitingCalls = 0;
  readonly #waitingByPrincipal = new Map<string, number>();
  /** Aborted when the server stops: open waits answer with what they know, new ones do not wait. */
  readonly #stopping = new AbortController();
  readonly #openCalls = new Set<Promise<unknown>>();

  constructor(tasks: TaskOperations, options: HandleToolsOptions) {
    this.#tasks = tasks;
    this.#options = options;
    this.#perPrincipalLimit =
      options.maxWaitingCallsPerPrincipal ?? Math.max(1, Math.floor(options.maxWaitingCalls / 4));
  }

  /**
   * The server is stopping: answer every open wait now with the task as last seen, and wait no more.
   * Resolves once the open calls have answered, or after boundMs: a call held by an upstream that never
   * answers (a delivery in flight) must not keep the server from stopping.
   */
  async stopWaiting(boundMs: number): Promise<void> {
    this.#stopping.abort();
    await withinMs(Promise.allSettled(this.#openCalls), boundMs);
  }

  /** Waits held open right now (the waits gauge). */
  get openWaits(): number {
    return this.#waitingCalls;
  }

  call(name: HandleToolName, args: unknown, caller: HandleCaller): Promise<CallToolResult> {
    return this.#tracked(this.#call(name, args, caller));
  }

  #tracked<T>(call: Promise<T>): Promise<T> {
    this.#openCalls.add(call);
    const forget = () => this.#openCalls.delete(call);
    call.then(forget, forget);
    return call;
  }

  async #call(name: HandleToolName, args: unknown, caller: HandleCaller): Promise<CallToolResult> {
    try {
      switch (name) {
        case "task_status":
          return await this.#status(
            validateToolInput(name, handleToolInputSchemas.task_status, args) as StatusArguments,
            caller,
          );
        case "task_answer": {
          const checked = validateToolInput(name, handleToolInputSchemas.task_answer, args) as AnswerArguments;
          const unsafe = unsafeFieldName((args as { content?: unknown }).content);
          if (unsafe !== undefined) invalidArguments(name, `content.${unsafe}`, "not a name a form's field can have");
          return await this.#answer(checked, caller);
        }
        case "task_cancel":
          return await this.#cancel(
            validateToolInput(name, handleToolInputSchemas.task_cancel, args) as { taskId: string },
            caller,
          );
      }
    } catch (error) {
      // Unusable ids, refused answers and upstream faults: the model reads them, as tasks/* clients read -32602.
      if (error instanceof TaskProtocolError && !caller.signal.aborted) return toolError(error.message);
      throw error;
    }
  }

  /**
   * The first answer to a job tool called without the extension: wait up to waitMs for a quick finish (or a
   * question), then answer with the result or the handle. The job is never cancelled for running longer.
   */
  firstAnswer(options: {
    read: (bounds: LookBounds) => Promise<DetailedTask>;
    waitMs: number;
    principal: string;
    signal: AbortSignal;
    toolName: string;
    pollIntervalMs: number;
    changed?: (signal: AbortSignal) => Promise<void>;
  }): Promise<CallToolResult> {
    return this.#tracked(
      this.#wait(
        options.read,
        options.waitMs,
        options.principal,
        options.signal,
        options.pollIntervalMs,
        undefined,
        options.changed,
      ).then(({ task, busy }) =>
        firstAnswer({ task, toolName: options.toolName, pollIntervalMs: options.pollIntervalMs, busy }),
      ),
    );
  }

  async #status(args: StatusArguments, caller: HandleCaller): Promise<CallToolResult> {
    const { toolName, pollIntervalMs } = this.#tasks.describeTask(args.taskId, caller.principal);
    const deadline = this.#options.now() + (args.waitSeconds ?? defaultStatusWaitSeconds) * 1000;
    const read = (bounds: LookBounds) => this.#tasks.getTask(args.taskId, caller, bounds);
    const changed = this.#tasks.whenChanged
      ? (signal: AbortSignal) => this.#tasks.whenChanged!(args.taskId, caller.principal, signal)
      : undefined;
    let { task, busy } = await this.#wait(
      read,
      deadline - this.#options.now(),
      caller.principal,
      caller.signal,
      pollIntervalMs,
      caller.onProgress,
      changed,
    );
    // A question the user answered in the client's own form is delivered, and the wait goes on; without
    // an answer (no form, dismissed, too slow) the model gets the question and task_answer, as always.
    while (
      task.status === "input_required" &&
      caller.askUser &&
      deadline - this.#options.now() > 0 &&
      !this.#stopping.signal.aborted
    ) {
      if (!(await this.#askUser(args.taskId, task.inputRequests, deadline, caller))) break;
      ({ task, busy } = await this.#wait(
        read,
        Math.max(0, deadline - this.#options.now()),
        caller.principal,
        caller.signal,
        pollIntervalMs,
        caller.onProgress,
        changed,
      ));
    }
    return statusAnswer({ task, toolName, pollIntervalMs, busy });
  }

  /**
   * Put the first outstanding question to the user; true when an answer reached the upstream by the
   * deadline. A delivery still on its way then goes on (sent at most once, as task_answer's does), and the
   * wait answers in time with the task as last seen.
   */
  async #askUser(
    taskId: string,
    inputRequests: Record<string, InputRequest>,
    deadline: number,
    caller: HandleCaller,
  ): Promise<boolean> {
    const [key, request] = Object.entries(inputRequests)[0] ?? [];
    if (key === undefined || request === undefined || !caller.askUser) return false;
    const response = await caller.askUser(request, deadline - this.#options.now()).catch(() => undefined);
    // A dismissed form is no decision: leave the question to the model rather than send a refusal.
    if (!response || response.action === "cancel") return false;
    const checked = checkFormAnswer(request, response.action, response.content);
    if (!checked.ok) return false;
    // Not tied to this request, which ends at the deadline: the user's answer must not stop halfway.
    const delivery = { ...caller, signal: new AbortController().signal };
    const delivering = this.#tasks.updateTask(taskId, { [key]: checked.response }, delivery);
    const settled = await withinMs(delivering, Math.max(0, deadline - this.#options.now()));
    return settled?.value.includes(key) ?? false;
  }

  async #answer(args: AnswerArguments, caller: HandleCaller): Promise<CallToolResult> {
    const { toolName, pollIntervalMs } = this.#tasks.describeTask(args.taskId, caller.principal);
    // The whole call answers within the slow-upstream bound, as task_cancel does: past it the delivery goes
    // on, and the answer says so. The ledger keeps it sent once, however many answers queue behind it.
    const answerBy = this.#options.now() + this.#options.slowUpstreamAnswerMs;
    const task = await this.#tasks.getTask(args.taskId, caller, { answerWithinMs: this.#options.slowUpstreamAnswerMs });
    const request = task.status === "input_required" ? task.inputRequests[args.key] : undefined;
    if (!request || this.#tasks.wasAnswered(args.taskId, args.key, caller.principal))
      return this.#notOutstanding(args, task, toolName, pollIntervalMs, caller);
    const checked = checkFormAnswer(request, args.action, args.content);
    if (!checked.ok) {
      return toolError(
        `Invalid answer to question ${args.key} of ${toolName}: ${checked.field}: ${checked.problem}. Nothing was sent; correct it and call task_answer again.`,
      );
    }
    // Not tied to this request: an answer the caller was told is being delivered must not stop when the
    // request ends. The reader's deadline bounds its read, the adapter's transport its delivery.
    const delivery = { ...caller, signal: new AbortController().signal };
    const delivering = this.#tasks.updateTask(args.taskId, { [args.key]: checked.response }, delivery);
    const settled = await withinMs(delivering, Math.max(0, answerBy - this.#options.now()));
    if (!settled) return stillDelivering(args, task, toolName, this.#options.slowUpstreamAnswerMs);
    // The task as this process knows it now: the ledger leaves out the question just answered, so this
    // read (mostly the snapshot the delivery's own read left) says whether the job still asks anything.
    const readAfter = () =>
      this.#tasks.getTask(args.taskId, caller, { answerWithinMs: Math.max(0, answerBy - this.#options.now()) });
    // Answered meanwhile by someone else, or superseded between the two reads: still sent at most once.
    if (!settled.value.includes(args.key))
      return this.#notOutstanding(args, await readAfter(), toolName, pollIntervalMs, caller);
    // The answer was sent whatever this read says: a failed read leaves the status out, not the answer.
    const after = await readAfter().catch(() => undefined);
    const sent = {
      taskId: args.taskId,
      key: args.key,
      action: args.action,
      sent: true,
      ...(after ? { status: after.status } : {}),
    };
    // An answer may end the job (a declined approval): then its outcome, not its progress, is what comes next.
    if (after && isTerminalStatus(after.status))
      return text(
        `Sent "${args.action}" to question ${args.key} of ${toolName}; the job has ended (${after.status}). Call task_status with {"taskId":"${args.taskId}"} for its outcome.`,
        {
          ...sent,
          next: followWithStatus(
            args.taskId,
            `The job ended (${after.status}) after this answer: task_status gives its outcome (the result, the failure or the cancellation).`,
          ),
        },
      );
    // A dismissed form, or an answer the adapter reports as left open, decides nothing: the job still asks.
    if (!this.#tasks.wasAnswered(args.taskId, args.key, caller.principal)) {
      return text(
        `Sent "${args.action}" to question ${args.key} of ${toolName}. The question is still open: answer it again with task_answer once decided. Call task_status with {"taskId":"${args.taskId}"} to follow the job.`,
        { ...sent, questionOpen: true, next: answerAgainNext(args.taskId, args.key) },
      );
    }
    return text(
      `Sent "${args.action}" to question ${args.key} of ${toolName}${after ? `; the job is ${after.status}` : ""}. Call task_status with {"taskId":"${args.taskId}"} to follow the job.`,
      {
        ...sent,
        next: followWithStatus(
          args.taskId,
          "The answer reached the system running the job, which goes on with it: task_status follows the job to its result or its next question.",
        ),
      },
    );
  }

  #notOutstanding(
    args: AnswerArguments,
    task: DetailedTask,
    toolName: string,
    pollIntervalMs: number,
    caller: HandleCaller,
  ): CallToolResult {
    const answered = (key: string) => this.#tasks.wasAnswered(args.taskId, key, caller.principal);
    return notOutstanding(args, { task, toolName, pollIntervalMs }, answered(args.key), answered);
  }

  async #cancel(args: { taskId: string }, caller: HandleCaller): Promise<CallToolResult> {
    const { toolName, pollIntervalMs } = this.#tasks.describeTask(args.taskId, caller.principal);
    // The whole call answers within the slow-upstream bound: a hung upstream is said to be slow, not waited on.
    const answerBy = this.#options.now() + this.#options.slowUpstreamAnswerMs;
    const task = await this.#tasks.getTask(args.taskId, caller, { answerWithinMs: this.#options.slowUpstreamAnswerMs });
    if (isTerminalStatus(task.status)) {
      // How it ended, as task_status would answer it (result or error included): nothing is left to call.
      const ended = statusAnswer({ task, toolName, pollIntervalMs });
      return {
        content: [
          { type: "text", text: `${toolName} had already ended (${task.status}); nothing to cancel.` },
          ...ended.content,
        ],
        structuredContent: { ...ended.structuredContent, cancelRequested: false },
      };
    }
    const cancelling = this.#tasks.cancelTask(args.taskId, caller);
    const answered = (await withinMs(cancelling, Math.max(0, answerBy - this.#options.now()))) !== undefined;
    const confirmation = answered
      ? "it is cooperative, so the job may still finish first"
      : "the upstream is slow to answer, so the request may still be on its way; it is cooperative, so the job may still finish first";
    return text(
      `Cancellation of ${toolName} was requested; ${confirmation}. Call task_status with {"taskId":"${args.taskId}"} to see how it ends.`,
      {
        taskId: args.taskId,
        status: task.status,
        cancelRequested: true,
        next: followWithStatus(
          args.taskId,
          "The cancel is requested, not immediate (the job may still finish first): task_status follows the job to how it ends.",
        ),
      },
    );
  }

  /**
   * busy: every wait slot was taken, or the caller's principal is past its share and the rest are kept for
   * the others, so the task was
   * read once and not waited for. Once the server stops, no wait is held either (not counted as busy).
   */
  async #wait(
    read: (bounds: LookBounds) => Promise<DetailedTask>,
    waitMs: number,
    principal: string,
    signal: AbortSignal,
    pollIntervalMs: number,
    onMessage?: (message: string) => void,
    changed?: (signal: AbortSignal) => Promise<void>,
  ): Promise<{ task: DetailedTask; busy: boolean }> {
    // Each wait holds a request open; past the bound, answer with what is known now rather than refuse.
    const stopping = this.#stopping.signal.aborted;
    const held = this.#waitingByPrincipal.get(principal) ?? 0;
    // Within its share a principal may take any free slot; past it, only while a share's worth stays free
    // for the others. A server with one principal (no tokens) still uses most of the slots.
    const share = this.#perPrincipalLimit;
    const waiting =
      !stopping &&
      this.#waitingCalls < this.#options.maxWaitingCalls &&
      (held < share || this.#waitingCalls + 1 <= this.#options.maxWaitingCalls - share);
    if (waiting) {
      this.#waitingCalls += 1;
      this.#waitingByPrincipal.set(principal, held + 1);
    }
    try {
      const task = await waitForTaskChange({
        read,
        waitMs: waiting ? waitMs : 0,
        signal,
        stopWaiting: this.#stopping.signal,
        slowUpstreamAnswerMs: this.#options.slowUpstreamAnswerMs,
        defaultPollIntervalMs: pollIntervalMs,
        now: this.#options.now,
        sleep: this.#options.sleep,
        ...(onMessage ? { onMessage } : {}),
        ...(changed ? { changed } : {}),
      });
      return { task, busy: !waiting && !stopping && waitMs > 0 };
    } finally {
      if (waiting) {
        this.#waitingCalls -= 1;
        const left = (this.#waitingByPrincipal.get(principal) ?? 1) - 1;
        if (left > 0) this.#waitingByPrincipal.set(principal, left);
        else this.#waitingByPrincipal.delete(principal);
      }
    }
  }
}

/** The promise's value when it settles within the time (its rejection counts, and is thrown); else undefined. */
async function withinMs<T>(promise: Promise<T>, milliseconds: number): Promise<{ value: T } | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), milliseconds);
  });
  try {
    return await Promise.race([promise.then((value) => ({ value })), late]);
  } finally {
    clearTimeout(timer);
    // A late failure is the upstream's to log; nobody waits for it any more.
    promise.catch(() => undefined);
  }
}

interface StatusArguments {
  taskId: string;
  waitSeconds?: number;
}

interface AnswerArguments {
  taskId: string;
  key: string;
  action: ElicitationResponse["action"];
  content?: Record<string, unknown>;
}

function notOutstanding(
  args: AnswerArguments,
  view: HandleView,
  alreadyAnswered: boolean,
  answered: (key: string) => boolean,
): CallToolResult {
  const open =
    view.task.status === "input_required" ? Object.keys(view.task.inputRequests).filter((key) => !answered(key)) : [];
  const questions = open.length > 0 ? ` Outstanding now: ${open.join(", ")}.` : "";
  const why = alreadyAnswered ? "already answered" : "already answered, superseded or never asked";
  return toolError(
    `Question ${args.key} of ${view.toolName} is not outstanding (${why}); nothing was sent. The job is ${view.task.status}.${questions}`,
    {
      taskId: args.taskId,
      key: args.key,
      action: args.action,
      sent: false,
      status: view.task.status,
      // A wrong or stale key while another question is open: that question is the call to make.
      next:
        open.length > 0
          ? answerNext(args.taskId, open)
          : followWithStatus(
              args.taskId,
              "Nothing was sent: task_status answers the job's status and lists the questions still open, if any.",
            ),
    },
  );
}
