import type { ApplicationElicitResult, TaskExecutionEvent, TaskOutcome, ToolExecution } from "@modelcontextprotocol/ext-tasks/client";
import { ClientError } from "./client-error.js";
import type { InputHandler } from "./connect-requester.js";
import { readElicitationForm } from "./elicitation-form.js";
import { exitCodes } from "./exit-codes.js";
import { resolvePreparedAnswer, type PreparedAnswers } from "./prepared-answers.js";
import { promptForm, promptInterrupt } from "./prompt-form.js";
import { formatElapsed } from "./progress-line.js";
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
  timeoutMs?: number | undefined;
  /** The command lines that resume (`watch`) or answer (`answer`, without its --answer) this task. */
  resumeHints(taskId: string): { watch: string; answer: string };
}

type Stop = { kind: "detached" } | { kind: "timeout" } | { kind: "unanswered"; requests: UnansweredRequest[] } | { kind: "error"; error: Error };

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

  private async follow(execution: ToolExecution<unknown>): Promise<number> {
    this.execution = execution;
    this.taskId = execution.kind === "task" ? execution.handle.taskId : "";
    const { output } = this.options;
    if (execution.kind === "task") this.announce(this.taskId);
    const timer = this.options.timeoutMs === undefined ? undefined : setTimeout(() => this.stop({ kind: "timeout" }), this.options.timeoutMs);
    // ext-tasks waits between polls on timers that do not hold the process open: without this, Node could
    // find nothing left to do mid-task and exit 0 before the task ended.
    const keepAlive = setInterval(() => undefined, 60_000);
    try {
      const { outcome } = await execution.settle({ signal: this.stopController.signal, onEvent: (event) => this.onEvent(event) });
      const ending = endingOf(outcome);
      output.finished(execution.kind === "task" ? this.taskId : undefined, ending);
      return ending.exitCode;
    } catch (error) {
      if (!this.stopReason) throw error;
      await execution.detach().catch(() => undefined);
      return this.reportStop(this.stopReason);
    } finally {
      clearInterval(keepAlive);
      if (timer) clearTimeout(timer);
    }
  }

  /** Called by ext-tasks for each input request; resolves with the answer, or stays pending until released. */
  async answer(params: Record<string, unknown> | undefined, taskId: string, inputKey: string, signal: AbortSignal | undefined): Promise<ApplicationElicitResult> {
    if (!params || params["mode"] === "url") {
      // Sampling, roots or a URL elicitation: nothing a terminal answers here.
      this.stop({ kind: "unanswered", requests: [{ inputKey, form: { message: typeof params?.["message"] === "string" ? params["message"] : "The task asks for input this client cannot give.", fields: [] } }] });
      return holdUntilReleased(signal);
    }
    const form = readElicitationForm(params);
    this.announce(taskId);
    this.options.output.asked(taskId, inputKey, form);
    let resolution;
    try {
      resolution = resolvePreparedAnswer(this.options.answers, inputKey, form);
    } catch (error) {
      this.stop({ kind: "error", error: new ClientError((error as Error).message) });
      return holdUntilReleased(signal);
    }
    if (resolution.kind === "answered") return resolution.result;
    if (!this.options.interactive) {
      this.unanswered.push({ inputKey, form });
      this.stop({ kind: "unanswered", requests: this.unanswered });
      return holdUntilReleased(signal);
    }
    const known = resolution.content;
    const answer = await this.exclusivePrompt(async () => {
      for (;;) {
        const outcome = await promptForm(form, known);
        if (outcome !== "interrupted") return outcome;
        if (!(await this.askAfterInterrupt())) return undefined;
      }
    });
    return answer ?? holdUntilReleased(signal);
  }

  private announce(taskId: string): void {
    if (this.announced || taskId === "") return;
    this.announced = true;
    this.options.output.started(taskId);
  }

  private onEvent(event: TaskExecutionEvent<unknown>): void {
    if (event.type !== "task") return;
    const { task } = event;
    this.options.output.changed({ taskId: task.taskId, status: task.status, statusMessage: task.statusMessage, createdAt: task.createdAt });
  }

  private async interrupted(): Promise<void> {
    if (this.stopReason) return;
    // Without a terminal, or before there is a task to cancel, the only answer is to let go.
    if (!this.options.interactive || this.execution?.kind !== "task") return this.stop({ kind: "detached" });
    await this.exclusivePrompt(() => this.askAfterInterrupt());
  }

  /** Asks "cancel or detach?"; true when the person chose to keep following. */
  private async askAfterInterrupt(): Promise<boolean> {
    const execution = this.execution;
    if (execution?.kind !== "task") return true;
    const choice = await promptInterrupt();
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
        output.stopped(this.taskId, "detached", { reason: "detached: the task goes on without this terminal", hint: [watch] });
        return exitCodes.detached;
      case "timeout":
        output.stopped(this.taskId, "timeout", { reason: `timed out after ${formatElapsed(this.options.timeoutMs ?? 0)}; the task goes on`, hint: [watch] });
        return exitCodes.clientError;
      case "unanswered": {
        const [first] = reason.requests;
        const field = first?.form.fields.find((entry) => entry.required) ?? first?.form.fields[0];
        const example = first && field ? `${first.inputKey}.${field.name}=<value>` : "<key>.<field>=<value>";
        output.stopped(this.taskId, "unanswered", {
          reason: "the task asks for input and nobody is here to answer (stdin is not a terminal); answer with --answer or --answers",
          hint: [`${answer} --answer ${example}`, watch],
          unanswered: reason.requests,
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
    return { status: "completed", result, exitCode: result["isError"] === true ? exitCodes.toolError : exitCodes.completed };
  }
  if (outcome.status === "failed") {
    return { status: "failed", error: { code: outcome.error.code, message: outcome.error.message, ...(outcome.error.data !== undefined ? { data: outcome.error.data } : {}) }, exitCode: exitCodes.failed };
  }
  return { status: "cancelled", exitCode: exitCodes.cancelled };
}

/** An input handler's answer that never comes: it rejects when the execution lets go of it, sending nothing. */
function holdUntilReleased(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    signal?.addEventListener("abort", () => reject(signal.reason ?? new Error("released")), { once: true });
  });
}

