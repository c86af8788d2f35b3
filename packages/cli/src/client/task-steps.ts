import { terminalSafe, terminalSafeJson } from "@jobtasks/core";
import type { ApplicationElicitResult } from "@modelcontextprotocol/ext-tasks/client";
import { ClientError } from "./client-error.js";
import { isInteractive, readPreparedAnswers, type ClientFlags } from "./client-options.js";
import { describeField, readElicitationForm } from "./elicitation-form.js";
import { exitCodes } from "./exit-codes.js";
import { resolvePreparedAnswer } from "./prepared-answers.js";
import { promptForm } from "./prompt-form.js";
import { asClientError, type ClientSession } from "./run-client.js";
import { formatToolResult } from "./task-output.js";
import { UsageError } from "../usage-error.js";

/**
 * The steps of `jobtasks task get|answer|cancel`, apart from the command's options so that building the
 * program (for every command, serve included) loads neither the MCP client nor the prompts. Everything
 * they print may quote the server (a status, an input request's key, which the upstream chooses), so each
 * text goes out through terminalSafe and each JSON line through terminalSafeJson.
 */

export type TaskStep = (taskId: string, flags: ClientFlags, session: ClientSession) => Promise<number>;

async function snapshot(session: ClientSession, taskId: string) {
  return session.requester.session
    .task(taskId as never)
    .snapshot()
    .catch((error: unknown) => {
      throw asClientError(error, `cannot read task ${taskId}`);
    });
}

export const getTask: TaskStep = async (taskId, flags, session) => {
  const task = (await snapshot(session, taskId)).raw as Record<string, unknown>;
  const status = String(task["status"]);
  const exitCode = exitCodeOfTask(task);
  if (flags.json) {
    process.stdout.write(`${terminalSafeJson({ type: "task", ...task })}\n`);
    return exitCode;
  }
  const lines = [
    `task ${taskId}`,
    `status: ${status}${task["statusMessage"] ? ` (${String(task["statusMessage"])})` : ""}`,
  ];
  for (const [inputKey, request] of Object.entries(
    (task["inputRequests"] ?? {}) as Record<string, { method?: string; params?: Record<string, unknown> }>,
  )) {
    const form = readElicitationForm(request.params ?? {});
    lines.push(
      `input ${inputKey} (${request.method ?? "request"}): ${form.message}`,
      ...form.fields.map((field) => `  ${describeField(field)}`),
    );
  }
  if (task["error"]) lines.push(`error: ${JSON.stringify(task["error"])}`);
  process.stdout.write(
    `${terminalSafe(lines.join("\n"))}\n${task["result"] ? formatToolResult(task["result"] as Record<string, unknown>) : ""}`,
  );
  return exitCode;
};

/** Once the task has ended, the exit code call would have given; 0 while it runs. */
function exitCodeOfTask(task: Record<string, unknown>): number {
  switch (task["status"]) {
    case "completed":
      return (task["result"] as { isError?: unknown } | undefined)?.isError === true
        ? exitCodes.toolError
        : exitCodes.completed;
    case "failed":
      return exitCodes.failed;
    case "cancelled":
      return exitCodes.cancelled;
    default:
      return exitCodes.completed;
  }
}

export const answerTask: TaskStep = async (taskId, flags, session) => {
  const answers = readPreparedAnswers(flags);
  const task = (await snapshot(session, taskId)).raw as Record<string, unknown>;
  const requests = Object.entries(
    (task["inputRequests"] ?? {}) as Record<string, { method?: string; params?: Record<string, unknown> }>,
  );
  if (task["status"] !== "input_required" || requests.length === 0)
    throw new ClientError(`task ${taskId} is ${String(task["status"])}: it asks for nothing`);
  const responses: Record<string, ApplicationElicitResult> = {};
  const unanswered: string[] = [];
  for (const [inputKey, request] of requests) {
    if (request.method !== "elicitation/create") continue;
    const form = readElicitationForm(request.params ?? {});
    let resolution;
    try {
      resolution = resolvePreparedAnswer(answers, inputKey, form);
    } catch (error) {
      // The message names the form's fields, which the server chose.
      throw new UsageError(terminalSafe((error as Error).message));
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
  if (Object.keys(responses).length === 0)
    throw new ClientError(
      `nothing answered; the task asks:\n${unanswered.join("\n")}\nAnswer with --answer <key>.<field>=<value> or --answers JSON.`,
    );
  await session.requester.session
    .task(taskId as never)
    .update(responses as never)
    .catch((error: unknown) => {
      throw asClientError(error, "the server refused the answer");
    });
  if (flags.json)
    process.stdout.write(`${terminalSafeJson({ type: "answered", taskId, inputKeys: Object.keys(responses) })}\n`);
  else
    process.stderr.write(
      `${terminalSafe(`answered ${Object.keys(responses).join(", ")}${unanswered.length > 0 ? `; still asked:\n${unanswered.join("\n")}` : ""}`)}\n`,
    );
  return exitCodes.completed;
};

export const cancelTask: TaskStep = async (taskId, flags, session) => {
  const before = (await snapshot(session, taskId)).raw as Record<string, unknown>;
  if (["completed", "failed", "cancelled"].includes(String(before["status"]))) {
    // Nothing to cancel: say how it ended, and exit as call would have.
    const exitCode = exitCodeOfTask(before);
    if (flags.json)
      process.stdout.write(
        `${terminalSafeJson({ type: "already-ended", taskId, status: before["status"], exitCode })}\n`,
      );
    else
      process.stderr.write(
        `${terminalSafe(`task ${taskId} had already ended: ${String(before["status"])}; nothing to cancel`)}\n`,
      );
    return exitCode;
  }
  await session.requester.session
    .task(taskId as never)
    .cancel()
    .catch((error: unknown) => {
      throw asClientError(error, `cannot cancel task ${taskId}`);
    });
  if (flags.json) process.stdout.write(`${terminalSafeJson({ type: "cancel-requested", taskId })}\n`);
  else
    process.stderr.write(
      `${terminalSafe(`cancel requested; the task ends cancelled (or completed, if the job finished first): jobtasks watch ${session.resolved.display} ${taskId}`)}\n`,
    );
  return exitCodes.completed;
};
