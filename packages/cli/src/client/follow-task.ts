import { terminalSafe } from "@jobtasks/core";
import type {
  ApplicationElicitResult,
  TaskExecutionEvent,
  TaskOutcome,
  ToolExecution,
} from "@modelcontextprotocol/ext-tasks/client";
import { describeRequestFailure } from "./client-error.js";
import type { InputHandler } from "./connect-requester.js";
import { readElicitationForm } from "./elicitation-form.js";
import { exitCodes } from "./exit-codes.js";
import { resolvePreparedAnswer, unknownGeneralFields, type PreparedAnswers } from "./prepared-answers.js";
import { promptForm, promptInterrupt } from "./prompt-form.js";
import { formatElapsed, type TaskProgress } from "./progress-line.js";
import { watchStillAsked } from "./watch-still-asked.js";
import type { TaskEnding, TaskOutput, UnansweredRequest } from "./task-output.js";

/**
 * Follows one execution to its end, or until the person (or the script) stops following: answers input
 * requests from prepared answers or at a prompt, turns Ctrl-C into "cancel or detach?", and gives the
 * exit code. Stopping never cancels the task unless asked to: the id stays valid, `watch` resumes it.
 */

export interface FollowOptions {
  output: TaskOutput;
  answers: PreparedAnswers;
  /** Whether a person is at the terminal to be asked (stdin and stderr are terminals). */
  interactive: boolean;
  /** Removes what must not be printed (the URL's credentials) from an error's message. */
  redact(text: string): string;
  /** Why nobody is asked when not interactive ("--json", "stdin is not a terminal"). */
  whyNotAsked: string;
  timeoutMs?: number | undefined;
  /** The command lines that resume (`watch`) or answer (`answer`, without its --answer) this task. */
  resumeHints(taskId: string): { watch: string; answer: string };
  /** Follows the task afresh (as `watch` does): after its open question was answered elsewhere. */
  resume(taskId: string): Promise<ToolExecution<unknown>>;
  /** Whether the task still asks `inputKey` (false once it moved on or ended), read from tasks/get. */
  stillAsks(taskId: string, inputKey: string): Promise<boolean>;
}

type Stop =
  | { kind: "detached" }
  | { kind: "timeout" }
  | { kind: "unanswered"; requests: UnansweredRequest[]; why: string }
  | { kind: "disconnected"; why: string }
  | { kind: "error"; error: Error };

/**
 * The input handler has to exist before the session does; it hands each request to whichever follower is
 * running. A request that arrives with nobody following (it cannot, in practice) is held unanswered.
 */
export class TaskFollower {
  private current: ActiveFollow | undefined;

  readonly inputHandler: InputHandler = (request, context) => {
    const follow = this.current;
    if (!follow) return holdUntilReleased(context.signal);
    const params = request.kind === "elicitation" ? (request.params as Record<string, unknown>) : undefined;
    return follow.answer(params, context.taskId ?? "", context.inputId ?? "input", context.signal);
  };

  /**
   * Starts (or resumes) the execution and follows it. The follower is in place before `start` runs: ext-tasks
   * may hand over an input request while resuming a task that already waits for one.
   */
  async follow(start: () => Promise<ToolExecution<unknown>>, options: FollowOptions): Promise<number> {
    const follow = new ActiveFollow(options);
    this.current = follow;
    try {
      return await follow.run(start);
    } finally {
      this.current = undefined;
    }
  }
}

class ActiveFollow {
  private readonly stopController = new AbortController();
  private stopReason: Stop | undefined;
  /** Aborted to let go of the current execution and follow the task afresh (a stale prompt). */
  private restartController = new AbortController();
  /** One prompt at a time: an input form and the Ctrl-C question never draw over each other. */
  private promptChain: Promise<unknown> = Promise.resolve();
  private readonly unanswered: UnansweredRequest[] = [];
  private execution: ToolExecution<unknown> | undefined;
  private taskId = "";
  /** Whether the task id has been printed: an input request may come before the start returns. */
  private announced = false;

  constructor(private readonly options: FollowOptions) {}

  async run(start: () => Promise<ToolExecution<unknown>>): Promise<number> {
    // Listening from before the start: a Ctrl-C while the call is on its way must not lose the task.
    const onInterrupt = () => void this.interrupted();
    process.on("SIGINT", onInterrupt);
    try {
      return await this.follow(await start());
    } finally {
      process.off("SIGINT", onInterrupt);
    }
  }

  private async follow(first: ToolExecution<unknown>): Promise<number> {
    const timer =
      this.options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => this.stop({ kind: "timeout" }), this.options.timeoutMs);
    // ext-tasks waits between polls on timers that do not hold the process open: without this, Node could
    // find nothing left to do mid-task and exit 0 before the task ended.
    const keepAlive = setInterval(() => undefined, 60_000);
    try {
      for (let execution = first; ;) {
        const ended = await this.settle(execution);
        if (ended !== "restart") return ended;
        // ext-tasks lets go of the task id once the detached execution has settled; then it resumes.
        await execution.detach().catch(() => undefined);
        await execution.result().catch(() => undefined);
        this.restartController = new AbortController();
        execution = await this.options.resume(this.taskId).catch((error: unknown) => {
          throw this.stopReason?.kind === "error" ? this.stopReason.error : error;
        });
      }
    } finally {
      clearInterval(keepAlive);
      if (timer) clearTimeout(timer);
    }
  }

  private async settle(execution: ToolExecution<unknown>): Promise<number | "restart"> {
    this.execution = execution;
    this.taskId = execution.kind === "task" ? execution.handle.taskId : "";
    const { output } = this.options;
    if (execution.kind === "task") this.announce(this.taskId);
    try {
      const signal = AbortSignal.any([this.stopController.signal, this.restartController.signal]);
      const { outcome, lastTask } = await execution.settle({ signal, onEvent: (event) => this.onEvent(event) });
      // ext-tasks reports a request that failed (the server gone) as a failed outcome too; only a task that
      // tasks/get said failed has failed, anything else leaves it running upstream.
      if (execution.kind === "task" && outcome.status === "failed" && (outcome.task ?? lastTask)?.status !== "failed") {
        const { code } = outcome.error;
        const message = this.options.redact(describeRequestFailure(outcome.error));
        this.stop({
          kind: "disconnected",
          why:
            code === undefined
              ? `lost the server (${message}); the task goes on there`
              : `the server refused to read the task: ${message} (${code})`,
        });
        await execution.detach().catch(() => undefined);
        return this.reportStop(this.stopReason!);
      }
      const ending = endingOf(outcome);
      output.finished(execution.kind === "task" ? this.taskId : undefined, ending);
      return ending.exitCode;
    } catch (error) {
      if (!this.stopReason && this.restartController.signal.aborted) return "restart";
      if (!this.stopReason) throw error;
      await execution.detach().catch(() => undefined);
      return this.reportStop(this.stopReason);
    }
  }

  /** Called by ext-tasks for each input request; resolves with the answer, or stays pending until released. */
  async answer(
    params: Record<string, unknown> | undefined,
    taskId: string,
    inputKey: string,
    signal: AbortSignal | undefined,
  ): Promise<ApplicationElicitResult> {
    if (!params || params["mode"] === "url") {
      // Sampling, roots or a URL elicitation: nothing a terminal answers here.
      const message =
        typeof params?.["message"] === "string"
          ? params["message"]
          : "The task asks for input this client cannot give.";
      this.stop({
        kind: "unanswered",
        requests: [{ inputKey, form: { message, fields: [] } }],
        why: "the task asks for input this terminal client cannot give",
      });
      return holdUntilReleased(signal);
    }
    const form = readElicitationForm(params);
    this.announce(taskId);
    this.options.output.asked(taskId, inputKey, form);
    for (const name of unknownGeneralFields(this.options.answers, form)) {
      // The key and the field names are the server's (the upstream's, behind the rest adapter).
      process.stderr.write(
        `${terminalSafe(`warning: --answer ${name}: input ${inputKey} has no field "${name}" (fields: ${form.fields.map((field) => field.name).join(", ") || "none"}); not used`)}\n`,
      );
    }
    let resolution;
    try {
      resolution = resolvePreparedAnswer(this.options.answers, inputKey, form);
    } catch (error) {
      // A prepared value the form refuses: nothing is sent, and the task still waits for a right one.
      this.stop({ kind: "unanswered", requests: [{ inputKey, form }], why: (error as Error).message });
      return holdUntilReleased(signal);
    }
    if (resolution.kind === "answered") return resolution.result;
    if (!this.options.interactive) {
      this.unanswered.push({ inputKey, form });
      this.stop({
        kind: "unanswered",
        requests: this.unanswered,
        why: `the task asks for input and nobody is here to answer (${this.options.whyNotAsked}); answer with --answer or --answers`,
      });
      return holdUntilReleased(signal);
    }
    const known = resolution.content;
    // The prompt closes on a stop (a timeout) and when the question is no longer asked (answered elsewhere).
    const stale = new AbortController();
    const promptSignal = AbortSignal.any([this.stopController.signal, stale.signal]);
    const watcher = watchStillAsked(
      () => this.options.stillAsks(taskId, inputKey),
      promptSignal,
      () => stale.abort(),
    );
    try {
      const answer = await this.exclusivePrompt(async () => {
        for (;;) {
          if (promptSignal.aborted) break;
          const outcome = await promptForm(form, known, promptSignal);
          if (promptSignal.aborted) break;
          if (outcome !== "interrupted") return outcome;
          if (!(await this.askAfterInterrupt(promptSignal))) break;
        }
        // Said while the progress line is still paused: it then redraws below this line, not over it.
        if (stale.signal.aborted && !this.stopReason)
          process.stderr.write(
            `input ${terminalSafe(inputKey)} is no longer asked (answered elsewhere, or the task moved on)\n`,
          );
        return undefined;
      });
      if (answer) return answer;
      if (stale.signal.aborted && !this.stopReason)
        this.restartController.abort(new Error("the question was answered elsewhere"));
      return await holdUntilReleased(signal);
    } finally {
      stale.abort();
      await watcher;
    }
  }

  private announce(taskId: string): void {
    if (this.announced || taskId === "") return;
    this.announced = true;
    this.options.output.started(taskId);
  }

  private onEvent(event: TaskExecutionEvent<unknown>): void {
    if (event.type !== "task") return;
    const { task } = event;
    this.options.output.changed({
      taskId: task.taskId,
      status: task.status,
      statusMessage: task.statusMessage,
      progress: progressOf(task.raw),
      createdAt: task.createdAt,
    });
  }

  private async interrupted(): Promise<void> {
    if (this.stopReason) return;
    // Without a terminal, or before there is a task to cancel, the only answer is to let go.
    if (!this.options.interactive || this.execution?.kind !== "task") return this.stop({ kind: "detached" });
    await this.exclusivePrompt(() => this.askAfterInterrupt(this.stopController.signal));
  }

  /** Asks "cancel or detach?"; true when the person chose to keep following. */
  private async askAfterInterrupt(signal: AbortSignal): Promise<boolean> {
    const execution = this.execution;
    if (execution?.kind !== "task" || signal.aborted) return true;
    const choice = await promptInterrupt(signal);
    if (signal.aborted) return false;
    if (choice === "detach") this.stop({ kind: "detached" });
    if (choice === "cancel") {
      process.stderr.write("asking the server to cancel the task…\n");
      await execution.cancel().catch((error: unknown) => this.stop({ kind: "error", error: error as Error }));
    }
    return choice === "continue";
  }

  private async exclusivePrompt<T>(prompt: () => Promise<T>): Promise<T> {
    const turn = this.promptChain.then(async () => {
      this.options.output.pause();
      try {
        return await prompt();
      } finally {
        this.options.output.resume();
      }
    });
    this.promptChain = turn.catch(() => undefined);
    return turn;
  }

  private stop(reason: Stop): void {
    if (this.stopReason) return;
    this.stopReason = reason;
    this.stopController.abort(new Error(`stopped following: ${reason.kind}`));
  }

  private reportStop(reason: Stop): number {
    const { watch, answer } = this.options.resumeHints(this.taskId);
    const { output } = this.options;
    switch (reason.kind) {
      case "detached":
        output.stopped(this.taskId, "detached", {
          reason: "detached: the task goes on without this terminal",
          hint: [watch],
          exitCode: exitCodes.detached,
        });
        return exitCodes.detached;
      case "timeout":
        output.stopped(this.taskId, "timeout", {
          reason: `timed out after ${formatElapsed(this.options.timeoutMs ?? 0)}; the task goes on`,
          hint: [watch],
          exitCode: exitCodes.clientError,
        });
        return exitCodes.clientError;
      case "disconnected":
        output.stopped(this.taskId, "disconnected", {
          reason: reason.why,
          hint: [watch],
          exitCode: exitCodes.clientError,
        });
        return exitCodes.clientError;
      case "unanswered": {
        const [first] = reason.requests;
        const field = first?.form.fields.find((entry) => entry.required) ?? first?.form.fields[0];
        const example = first && field ? `${first.inputKey}.${field.name}=<value>` : "<key>.<field>=<value>";
        output.stopped(this.taskId, "unanswered", {
          reason: reason.why,
          hint: [`${answer} --answer ${example}`, watch],
          unanswered: reason.requests,
          exitCode: exitCodes.clientError,
        });
        return exitCodes.clientError;
      }
      case "error":
        throw reason.error;
    }
  }
}

export function endingOf(outcome: TaskOutcome<unknown>): TaskEnding {
  if (outcome.status === "completed") {
    const result = outcome.result as Record<string, unknown>;
    return {
      status: "completed",
      result,
      exitCode: result["isError"] === true ? exitCodes.toolError : exitCodes.completed,
    };
  }
  if (outcome.status === "failed") {
    return {
      status: "failed",
      error: {
        code: outcome.error.code,
        message: outcome.error.message,
        ...(outcome.error.data !== undefined ? { data: outcome.error.data } : {}),
      },
      exitCode: exitCodes.failed,
    };
  }
  return { status: "cancelled", exitCode: exitCodes.cancelled };
}

/** The adapter's progress as the jobtasks server puts it in a task's `_meta`; undefined when absent or odd. */
function progressOf(raw: unknown): TaskProgress | undefined {
  const meta = (raw as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const progress = meta?.["io.jobtasks/progress"] as { progress?: unknown; total?: unknown } | undefined;
  if (typeof progress?.progress !== "number" || !Number.isFinite(progress.progress)) return undefined;
  return typeof progress.total === "number" && Number.isFinite(progress.total)
    ? { progress: progress.progress, total: progress.total }
    : { progress: progress.progress };
}

/** An input handler's answer that never comes: it rejects when the execution lets go of it, sending nothing. */
function holdUntilReleased(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    signal?.addEventListener("abort", () => reject(signal.reason ?? new Error("released")), { once: true });
  });
}
