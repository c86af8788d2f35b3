import { Command } from "commander";
import type { ApplicationElicitResult } from "@modelcontextprotocol/ext-tasks/client";
import { ClientError } from "./client/client-error.js";
import { addAnswerOptions, addConnectionOptions, isInteractive, readPreparedAnswers, type ClientFlags } from "./client/client-options.js";
import { describeField, readElicitationForm } from "./client/elicitation-form.js";
import { exitCodes } from "./client/exit-codes.js";
import { resolvePreparedAnswer } from "./client/prepared-answers.js";
import { promptForm } from "./client/prompt-form.js";
import { asClientError, withClient, type ClientSession } from "./client/run-client.js";
import { formatToolResult } from "./client/task-output.js";
import type { CommandModule } from "./command-module.js";
import { UsageError } from "./usage-error.js";

/** `jobtasks task get|answer|cancel`: one step on a task, for scripts and for looking around. */

type Action = (taskId: string, flags: ClientFlags, session: ClientSession) => Promise<number>;

function subcommand(name: string, summary: string, description: string, action: Action, withAnswers = false): Command {
  const command = new Command(name)
    .summary(summary)
    .description(description)
    .usage(`<url> <taskId> [options]   or   --stdio "<command>" <taskId> [options]`)
    .argument("<url-or-task-id>", "the server's MCP endpoint, or the task id when --stdio is given")
    .argument("[taskId]", "the task id");
  addConnectionOptions(command);
  if (withAnswers) addAnswerOptions(command);
  return command.action(async (first: string, second: string | undefined, flags: ClientFlags) => {
    process.exitCode = await withClient([first, ...(second === undefined ? [] : [second])], flags, async (session) => {
      const [taskId, ...extra] = session.resolved.rest;
      if (taskId === undefined) throw new UsageError("expected the task id");
      if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
      return action(taskId, flags, session);
    });
  });
}

async function snapshot(session: ClientSession, taskId: string) {
  return session.requester.session
    .task(taskId as never)
    .snapshot()
    .catch((error: unknown) => {
      throw asClientError(error, `cannot read task ${taskId}`);
    });
}

const getTask: Action = async (taskId, flags, session) => {
  const task = (await snapshot(session, taskId)).raw as Record<string, unknown>;
  const status = String(task["status"]);
  const exitCode = exitCodeOfTask(task);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ type: "task", ...task })}\n`);
    return exitCode;
  }
  const lines = [`task ${taskId}`, `status: ${status}${task["statusMessage"] ? ` (${String(task["statusMessage"])})` : ""}`];
  for (const [inputKey, request] of Object.entries((task["inputRequests"] ?? {}) as Record<string, { method?: string; params?: Record<string, unknown> }>)) {
    const form = readElicitationForm(request.params ?? {});
    lines.push(`input ${inputKey} (${request.method ?? "request"}): ${form.message}`, ...form.fields.map((field) => `  ${describeField(field)}`));
  }
  if (task["error"]) lines.push(`error: ${JSON.stringify(task["error"])}`);
  process.stdout.write(`${lines.join("\n")}\n${task["result"] ? formatToolResult(task["result"] as Record<string, unknown>) : ""}`);
  return exitCode;
};

/** Once the task has ended, the exit code call would have given; 0 while it runs. */
function exitCodeOfTask(task: Record<string, unknown>): number {
  switch (task["status"]) {
    case "completed":
      return (task["result"] as { isError?: unknown } | undefined)?.isError === true ? exitCodes.toolError : exitCodes.completed;
    case "failed":
      return exitCodes.failed;
    case "cancelled":
      return exitCodes.cancelled;
    default:
      return exitCodes.completed;
  }
}

const answerTask: Action = async (taskId, flags, session) => {
  const answers = readPreparedAnswers(flags);
  const task = (await snapshot(session, taskId)).raw as Record<string, unknown>;
  const requests = Object.entries((task["inputRequests"] ?? {}) as Record<string, { method?: string; params?: Record<string, unknown> }>);
  if (task["status"] !== "input_required" || requests.length === 0) throw new ClientError(`task ${taskId} is ${String(task["status"])}: it asks for nothing`);
  const responses: Record<string, ApplicationElicitResult> = {};
  const unanswered: string[] = [];
  for (const [inputKey, request] of requests) {
    if (request.method !== "elicitation/create") continue;
    const form = readElicitationForm(request.params ?? {});
    let resolution;
    try {
      resolution = resolvePreparedAnswer(answers, inputKey, form);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (resolution.kind === "answered") {
      responses[inputKey] = resolution.result;
    } else if (!flags.json && isInteractive()) {
      const outcome = await promptForm(form, resolution.content);
      if (outcome === "interrupted") return exitCodes.clientError;
      responses[inputKey] = outcome;
    } else {
      unanswered.push(`input ${inputKey}: ${form.message}`, ...form.fields.map((field) => `  ${describeField(field)}`));
    }
  }
  if (Object.keys(responses).length === 0) throw new ClientError(`nothing answered; the task asks:\n${unanswered.join("\n")}\nAnswer with --answer <key>.<field>=<value> or --answers JSON.`);
  await session.requester.session
    .task(taskId as never)
    .update(responses as never)
    .catch((error: unknown) => {
      throw asClientError(error, "the server refused the answer");
    });
  if (flags.json) process.stdout.write(`${JSON.stringify({ type: "answered", taskId, inputKeys: Object.keys(responses) })}\n`);
  else process.stderr.write(`answered ${Object.keys(responses).join(", ")}${unanswered.length > 0 ? `; still asked:\n${unanswered.join("\n")}` : ""}\n`);
  return exitCodes.completed;
};

const cancelTask: Action = async (taskId, flags, session) => {
  const before = (await snapshot(session, taskId)).raw as Record<string, unknown>;
  if (["completed", "failed", "cancelled"].includes(String(before["status"]))) {
    // Nothing to cancel: say how it ended, and exit as call would have.
    const exitCode = exitCodeOfTask(before);
    if (flags.json) process.stdout.write(`${JSON.stringify({ type: "already-ended", taskId, status: before["status"], exitCode })}\n`);
    else process.stderr.write(`task ${taskId} had already ended: ${String(before["status"])}; nothing to cancel\n`);
    return exitCode;
  }
  await session.requester.session
    .task(taskId as never)
    .cancel()
    .catch((error: unknown) => {
      throw asClientError(error, `cannot cancel task ${taskId}`);
    });
  if (flags.json) process.stdout.write(`${JSON.stringify({ type: "cancel-requested", taskId })}\n`);
  else process.stderr.write(`cancel requested; the task ends cancelled (or completed, if the job finished first): jobtasks watch ${session.resolved.display} ${taskId}\n`);
  return exitCodes.completed;
};

export const taskCommand: CommandModule = {
  usageExitCode: exitCodes.clientError,
  build: () =>
    new Command("task")
      .summary("get, answer or cancel a task by its id")
      .description("One step on a task by its id: get (print it), answer (its input requests), cancel.")
      .addCommand(subcommand("get", "print the task", "Print the task: status, message, the input it asks for, its result. Exit code as for call once it has ended, else 0.", getTask))
      .addCommand(subcommand("answer", "answer its input requests", "Answer the task's input requests from --answer/--answers, or at a prompt on a terminal.", answerTask, true))
      .addCommand(subcommand("cancel", "ask the server to cancel it", "Ask the server to cancel the task (cooperative: it may still complete).", cancelTask)),
};
