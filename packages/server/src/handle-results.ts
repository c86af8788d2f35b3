import type { CallToolResult, ElicitationFormRequest, InputRequest } from "@jobtasks/core";
import type { DetailedTask } from "./task-shape.js";
import { defaultStatusWaitSeconds } from "./handle-tool-definitions.js";

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
        fields,
      );
    case "working":
      return text(
        (first ? `Started ${toolName}; it runs on its own, outside this call` : `${toolName} is still running`) +
          `${task.statusMessage ? ` (${task.statusMessage})` : ""}. ` +
          (view.busy
            ? `The server is busy (every wait is taken), so this call did not wait: wait about ${fields["pollIntervalMs"]} ms, then call ${follow} again. `
            : `To follow it, call ${follow}: each call waits up to ${defaultStatusWaitSeconds} s for the job to finish or ask a question, ` +
              `so call it again while the status is "working". `) +
          `To stop the job, call task_cancel with the same taskId.`,
        fields,
      );
  }
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

function text(message: string, structuredContent: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: message }], structuredContent };
}

export function toolError(message: string, structuredContent?: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: "text", text: message }],
    isError: true,
    ...(structuredContent ? { structuredContent } : {}),
  };
}
