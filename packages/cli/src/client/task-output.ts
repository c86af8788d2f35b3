import { terminalSafe, terminalSafeJson } from "@jobtasks/core";
import { createLogUpdate } from "log-update";
import { describeField, type ElicitationForm } from "./elicitation-form.js";
import { formatElapsed, renderProgressLine, type TaskProgress } from "./progress-line.js";

/**
 * What a followed task prints. For people: the task id, one live progress line on stderr (redrawn in
 * place on a terminal, a line per change otherwise), and the result on stdout. For scripts (`--json`):
 * one JSON line per change on stdout, the final result last. Every text the server sent goes through
 * terminalSafe (for people) or terminalSafeJson (for scripts): a job's output must not drive the terminal.
 */

export interface TaskState {
  taskId: string;
  status: string;
  statusMessage?: string | undefined;
  progress?: TaskProgress | undefined;
  createdAt?: string | undefined;
}

export type TaskEnding =
  | { status: "completed"; result: Record<string, unknown>; exitCode: number }
  | { status: "failed"; error: { code?: number | undefined; message: string; data?: unknown }; exitCode: number }
  | { status: "cancelled"; exitCode: number };

export interface UnansweredRequest {
  inputKey: string;
  form: ElicitationForm;
}

export type StopKind = "detached" | "timeout" | "unanswered" | "disconnected";

export interface StopLines {
  reason: string;
  hint: string[];
  unanswered?: UnansweredRequest[];
  exitCode: number;
}

export interface TaskOutput {
  started(taskId: string): void;
  changed(state: TaskState): void;
  asked(taskId: string, inputKey: string, form: ElicitationForm): void;
  /** Stops redrawing while a prompt owns the terminal. */
  pause(): void;
  resume(): void;
  finished(taskId: string | undefined, ending: TaskEnding): void;
  /** The client stops following; the task goes on. `reason` says why, `hint` how to resume. */
  stopped(taskId: string, kind: StopKind, lines: StopLines): void;
}

export function createTaskOutput(json: boolean): TaskOutput {
  return json ? new JsonTaskOutput() : new HumanTaskOutput();
}

class JsonTaskOutput implements TaskOutput {
  private last = "";
  started(taskId: string): void {
    this.write({ type: "task", taskId, status: "working" });
  }
  changed(state: TaskState): void {
    const line = {
      type: "task",
      taskId: state.taskId,
      status: state.status,
      ...(state.statusMessage ? { statusMessage: state.statusMessage } : {}),
      ...(state.progress ? { progress: state.progress } : {}),
    };
    const text = terminalSafeJson(line);
    if (text !== this.last) this.write(line);
  }
  asked(taskId: string, inputKey: string, form: ElicitationForm): void {
    this.write({ type: "input", taskId, inputKey, message: form.message, fields: form.fields });
  }
  pause(): void {}
  resume(): void {}
  finished(taskId: string | undefined, ending: TaskEnding): void {
    this.write({ type: "result", ...(taskId ? { taskId } : {}), ...ending });
  }
  stopped(taskId: string, kind: StopKind, lines: StopLines): void {
    const unanswered = lines.unanswered?.map((request) => ({
      inputKey: request.inputKey,
      message: request.form.message,
      fields: request.form.fields,
    }));
    this.write({
      type: kind,
      taskId,
      message: lines.reason,
      resume: lines.hint,
      ...(unanswered ? { unanswered } : {}),
      exitCode: lines.exitCode,
    });
  }
  private write(line: Record<string, unknown>): void {
    const text = terminalSafeJson(line);
    this.last = line["type"] === "task" ? text : this.last;
    process.stdout.write(`${text}\n`);
  }
}

class HumanTaskOutput implements TaskOutput {
  private readonly live = process.stderr.isTTY === true;
  private readonly draw = createLogUpdate(process.stderr, { showCursor: true });
  private readonly startedAt = Date.now();
  private state: TaskState | undefined;
  private lastPrinted = "";
  private tick = 0;
  private timer: NodeJS.Timeout | undefined;
  private paused = false;

  started(taskId: string): void {
    process.stderr.write(`task ${terminalSafe(taskId)}\n`);
    if (this.live) {
      this.timer = setInterval(() => this.redraw(), 120);
      this.timer.unref();
    }
  }

  changed(state: TaskState): void {
    this.state = state;
    if (this.live) return this.redraw();
    const line = terminalSafe(
      `[${formatElapsed(this.elapsed())}] ${state.status}${state.statusMessage ? `: ${state.statusMessage}` : ""}`,
    );
    const key = `${state.status}\u0000${state.statusMessage ?? ""}`;
    if (key !== this.lastPrinted) process.stderr.write(`${line}\n`);
    this.lastPrinted = key;
  }

  asked(): void {}

  pause(): void {
    this.paused = true;
    if (this.live) this.draw.clear();
  }

  resume(): void {
    this.paused = false;
    this.redraw();
  }

  finished(taskId: string | undefined, ending: TaskEnding): void {
    this.endLive();
    const took = formatElapsed(this.elapsed());
    if (ending.status === "completed") {
      process.stderr.write(
        ending.exitCode === 0
          ? `✔ completed in ${took}\n`
          : `✖ completed in ${took}, and the tool reports an error (isError)\n`,
      );
      process.stdout.write(formatToolResult(ending.result));
    } else if (ending.status === "failed") {
      process.stderr.write(
        `✖ failed after ${took}: ${terminalSafe(ending.error.message)}${ending.error.code !== undefined ? ` (${ending.error.code})` : ""}\n`,
      );
    } else {
      process.stderr.write(`■ cancelled after ${took}${taskId ? ` (task ${terminalSafe(taskId)})` : ""}\n`);
    }
  }

  stopped(taskId: string, kind: StopKind, lines: StopLines): void {
    this.endLive();
    const asked = (lines.unanswered ?? []).flatMap((request) => [
      `  input ${request.inputKey}: ${request.form.message}`,
      ...request.form.fields.map((field) => `    ${describeField(field)}`),
    ]);
    process.stderr.write(
      terminalSafe(
        [
          `${kind === "detached" ? "↪" : "✖"} ${lines.reason}`,
          ...asked,
          `task ${taskId}`,
          ...lines.hint.map((hint) => `  ${hint}`),
        ].join("\n"),
      ) + "\n",
    );
  }

  private elapsed(): number {
    const created = this.state?.createdAt ? Date.parse(this.state.createdAt) : Number.NaN;
    return Date.now() - (Number.isFinite(created) ? Math.min(created, this.startedAt) : this.startedAt);
  }

  private redraw(): void {
    if (!this.live || this.paused || !this.state) return;
    this.draw(
      renderProgressLine({
        status: terminalSafe(this.state.status),
        statusMessage: this.state.statusMessage === undefined ? undefined : terminalSafe(this.state.statusMessage),
        progress: this.state.progress,
        elapsedMs: this.elapsed(),
        tick: this.tick++,
      }),
    );
  }

  private endLive(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.live) this.draw.clear();
  }
}

/** A tool result as text, safe for a terminal: its text blocks, then structured content as indented JSON. */
export function formatToolResult(result: Record<string, unknown>): string {
  const blocks = Array.isArray(result["content"]) ? (result["content"] as Array<Record<string, unknown>>) : [];
  const parts = blocks.map((block) =>
    block["type"] === "text" && typeof block["text"] === "string" ? block["text"] : JSON.stringify(block),
  );
  if (result["structuredContent"] !== undefined) parts.push(JSON.stringify(result["structuredContent"], null, 2));
  return parts.length > 0 ? `${terminalSafe(parts.join("\n"))}\n` : "";
}
