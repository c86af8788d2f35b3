import type { CallToolResult, ElicitationFormRequest, InputRequest } from "@jobtasks/core";
import type { DetailedTask } from "./task-shape.js";
import { defaultStatusWaitSeconds } from "./handle-tool-definitions.js";
import { formatDuration } from "./retry-upstream.js";

/**
 * What a client without the tasks extension reads about a task: a plain CallToolResult whose
 * structuredContent carries the task's fields and whose text tells a model what to do next.
 */

export interface HandleView {
  task: DetailedTask;
  /** The job tool that started the task, named in the texts. */
  toolName: string;
  /** The adapter's polling interval, shown even once the task has ended (structuredContent always has one). */
  pollIntervalMs: number;
  /** Every wait slot was taken: the answer did not wait, and says so. */
  busy?: boolean;
}

/**
 * The call a model makes next, in every handle tool answer that has one. Hosts show the model either the
 * structuredContent (Codex; Claude Code for a result that is not an error) or the text (Claude Code for an
 * error), so both carry it: the JSON here, the text from nextCallText. `arguments` holds what is fixed; the
 * description says what is left to decide (an answer's action and content are never filled in for the model).
 */
export interface NextCall {
  tool: "task_status" | "task_answer";
  arguments: Record<string, unknown>;
  description: string;
}

/** Follow the job with task_status, for the reason given. */
export function followWithStatus(taskId: string, description: string): NextCall {
  return { tool: "task_status", arguments: { taskId }, description };
}

/** The structured part every answer about a task shares. */
export function taskFields(view: HandleView): Record<string, unknown> {
  const { task } = view;
  const fields: Record<string, unknown> = { taskId: task.taskId, status: task.status };
  if (task.statusMessage !== undefined) fields["statusMessage"] = task.statusMessage;
  if (task.status === "input_required") fields["inputRequests"] = task.inputRequests;
  fields["pollIntervalMs"] = task.pollIntervalMs ?? view.pollIntervalMs;
  return fields;
}

/**
 * The first answer to a job tool called without the extension: the job's own result when it already
 * finished, otherwise the handle.
 */
export function firstAnswer(view: HandleView): CallToolResult {
  if (view.task.status === "completed") {
    const { resultType: _resultType, ...result } = view.task.result;
    return result;
  }
  return statusAnswer(view, true);
}

/** task_status's answer (and the first answer of a job that has not finished). */
export function statusAnswer(view: HandleView, first = false): CallToolResult {
  const { task, toolName } = view;
  const fields = taskFields(view);
  const follow = `task_status with {"taskId":"${task.taskId}"}`;
  switch (task.status) {
    case "completed": {
      const { resultType: _resultType, structuredContent, ...result } = task.result;
      return {
        ...result,
        structuredContent: { ...fields, ...(structuredContent ? { result: structuredContent } : {}) },
      };
    }
    case "failed":
      return {
        content: [{ type: "text", text: `${toolName} failed: ${task.error.message}` }],
        structuredContent: { ...fields, error: { code: task.error.code, message: task.error.message } },
        isError: true,
      };
    case "cancelled":
      return text(
        `${toolName} was cancelled${saysMore(task.statusMessage, "cancelled") ? ` (${task.statusMessage})` : ""}; it has no result.`,
        fields,
      );
    case "input_required":
      return text(
        `${first ? `Started ${toolName}. ` : ""}${toolName} is waiting for an answer${task.statusMessage ? `: ${task.statusMessage}` : ""}.\n` +
          Object.entries(task.inputRequests)
            .map(([key, request]) => describeQuestion(task.taskId, key, request))
            .join("\n") +
          `\nAfter answering, call ${follow} to follow the job.`,
        { ...fields, next: answerNext(task.taskId, Object.keys(task.inputRequests)) },
      );
    case "working": {
      // "again" only once task_status was called: a first answer has not followed the job yet.
      const again = first ? "" : " again";
      const busyWait = `The server is busy (every wait is taken), so this call did not wait: wait about ${fields["pollIntervalMs"]} ms, then call`;
      const waits = `each call waits up to ${defaultStatusWaitSeconds} s for the job to finish or ask a question, so call it again while the status is "working"`;
      return text(
        (first ? `Started ${toolName}; it runs on its own, outside this call` : `${toolName} is still running`) +
          `${task.statusMessage ? ` (${task.statusMessage})` : ""}. ` +
          (view.busy ? `${busyWait} ${follow}${again}. ` : `To follow it, call ${follow}: ${waits}. `) +
          `To stop the job, call task_cancel with the same taskId.`,
        {
          ...fields,
          next: followWithStatus(
            task.taskId,
            view.busy
              ? `${busyWait} task_status with these arguments${again}. task_cancel with the same taskId stops the job.`
              : `The job runs on its own: task_status follows it; ${waits}. task_cancel with the same taskId stops the job.`,
          ),
        },
      );
    }
  }
}

/** After an answer that left the question open (a dismissed form): the same question, answered again once decided. */
export function answerAgainNext(taskId: string, key: string): NextCall {
  return {
    tool: "task_answer",
    arguments: { taskId, key },
    description:
      `Question ${key} is still open: the answer sent decided nothing. Once it is decided, answer it again with ` +
      `task_answer and these arguments plus action "accept" with content that fits its params.requestedSchema, or ` +
      `"decline" to refuse; meanwhile task_status with {"taskId":"${taskId}"} follows the job.`,
  };
}

/**
 * task_answer's answer when the upstream did not answer within the bound: the answer is still on its way
 * (sent at most once, and only if the question is still open when the upstream answers).
 */
export function stillDelivering(
  args: { taskId: string; key: string; action: string },
  task: DetailedTask,
  toolName: string,
  boundMs: number,
): CallToolResult {
  const within = formatDuration(boundMs);
  return text(
    `The upstream is slow to answer (nothing within ${within}), so "${args.action}" to question ${args.key} of ${toolName} ` +
      `is still being delivered: it is sent at most once, and only if the question is still open then. Call task_status ` +
      `with {"taskId":"${args.taskId}"} to see whether the job took it; answering again is not needed.`,
    {
      taskId: args.taskId,
      key: args.key,
      action: args.action,
      sent: false,
      delivering: true,
      upstreamSlow: true,
      status: task.status,
      next: followWithStatus(
        args.taskId,
        "The upstream is slow: the answer is still being delivered, at most once. task_status shows whether the job took it (the question no longer listed) or still asks.",
      ),
    },
  );
}

/** Answer the first open question; the others, if any, the same way. */
export function answerNext(taskId: string, keys: readonly string[]): NextCall {
  const [key, ...others] = keys;
  return {
    tool: "task_answer",
    arguments: { taskId, key },
    description:
      `Answer question ${key} (inputRequests["${key}"]) with task_answer and these arguments plus action "accept" with content ` +
      `that fits its params.requestedSchema (the decision is the user's or yours; a form's default is no answer), or action ` +
      `"decline" to refuse. ${others.length > 0 ? `Then answer ${others.join(", ")} the same way. ` : ""}` +
      `Afterwards call task_status with {"taskId":"${taskId}"} to follow the job.`,
  };
}

/** Whether a status message adds anything to the status word (an upstream's raw "cancelled" does not). */
function saysMore(message: string | undefined, status: string): boolean {
  if (message === undefined) return false;
  const plain = message.trim().toLowerCase();
  return plain !== "" && plain !== status && plain !== status.replace("ll", "l");
}

function describeQuestion(taskId: string, key: string, request: InputRequest): string {
  const { message, requestedSchema } = (request as ElicitationFormRequest).params;
  const required = new Set(requestedSchema.required ?? []);
  const fields = Object.entries(requestedSchema.properties).map(([name, schema]) => {
    const hint = [schema["type"], required.has(name) ? "required" : "optional"].filter(Boolean).join(", ");
    const about = schema["description"] ?? schema["title"];
    return `  - ${name} (${hint})${typeof about === "string" ? `: ${about}` : ""}`;
  });
  const example = Object.fromEntries(
    Object.entries(requestedSchema.properties)
      .filter(([name]) => required.has(name))
      .map(([name, schema]) => [name, exampleValue(schema)]),
  );
  const call = JSON.stringify({ taskId, key, action: "accept", content: example });
  return (
    `Question ${key}: ${message}\n` +
    (fields.length > 0 ? `Fields:\n${fields.join("\n")}\n` : "") +
    `Answer it with task_answer ${call} (with the content you decide on), or with action "decline" to refuse.`
  );
}

function exampleValue(schema: Record<string, unknown>): unknown {
  const options =
    schema["enum"] ?? (schema["oneOf"] as Array<{ const?: unknown }> | undefined)?.map((option) => option.const);
  if (Array.isArray(options) && options.length > 0) return options[0];
  switch (schema["type"]) {
    case "boolean":
      return true;
    case "number":
    case "integer":
      return typeof schema["minimum"] === "number" ? schema["minimum"] : 0;
    case "array":
      return [];
    default:
      return "...";
  }
}

/** The next call as a text states it: the tool and its exact JSON arguments, then what is left to decide. */
export function nextCallText(next: NextCall): string {
  return `Next: call ${next.tool} ${JSON.stringify(next.arguments)}. ${next.description}`;
}

/** The message, then the structuredContent's next call (when it has one) in nextCallText's words. */
function withNextCall(message: string, structuredContent: Record<string, unknown> | undefined): string {
  const next = structuredContent?.["next"] as NextCall | undefined;
  return next ? `${message}\n${nextCallText(next)}` : message;
}

/** A handle tool's answer: its text ends with the next call, so the text and the JSON never disagree. */
export function text(message: string, structuredContent: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: withNextCall(message, structuredContent) }], structuredContent };
}

/** A handle tool's error, its text ending with the next call as text() does. */
export function toolError(message: string, structuredContent?: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: "text", text: withNextCall(message, structuredContent) }],
    isError: true,
    ...(structuredContent ? { structuredContent } : {}),
  };
}
