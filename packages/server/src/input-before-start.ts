import { InvalidToolInputError, type CallToolResult, type ElicitationResponse, type InputRequest, type JobTool } from "@jobtasks/core";
import { parseElicitationResponse } from "./parse-elicitation-response.js";
import { errorCodes, TaskProtocolError } from "./protocol-error.js";

/** The protocol's answer when a request needs input first (multi round trip, 2026-07-28). */
export interface InputRequiredResult {
  resultType: "input_required";
  inputRequests: Record<string, InputRequest>;
}

export type BeforeStart =
  | { kind: "start"; answers?: Readonly<Record<string, ElicitationResponse>> }
  | { kind: "ask"; result: InputRequiredResult }
  | { kind: "refuse"; result: CallToolResult };

/**
 * Questions a tool asks before its job starts. They belong to the request itself, not to a task: the
 * answer is an input-required result, the client retries tools/call with `inputResponses`, and only when
 * nothing is left unanswered does the job start (and, with the extension, a task exist). Nothing is kept
 * between rounds: the client carries the answers, which are checked like the arguments.
 *
 * @param inputResponses what the client sent with this tools/call; undefined when the request's protocol
 *   era has no multi round trip (2025), whose clients cannot answer.
 */
export function askBeforeStart(tool: JobTool, input: unknown, inputResponses: Readonly<Record<string, unknown>> | undefined): BeforeStart {
  if (!tool.inputBeforeStart) return { kind: "start" };
  if (inputResponses === undefined) {
    const text = `${tool.name} asks questions before it starts, which only a client of protocol 2026-07-28 can answer.`;
    return { kind: "refuse", result: { content: [{ type: "text", text }], isError: true } };
  }
  // Only answers to questions the tool asks are read (and checked); other keys are ignored, as stale or
  // unrelated answers are on tasks/update. A question may depend on an earlier answer, so ask again until
  // the answers at hand settle nothing more (each pass reads at least one new key: bounded).
  const answers: Record<string, ElicitationResponse> = {};
  for (;;) {
    const outstanding = questionsLeft(tool, input, answers);
    const answered = Object.keys(outstanding).filter((key) => Object.hasOwn(inputResponses, key) && !Object.hasOwn(answers, key));
    if (answered.length === 0) {
      if (Object.keys(outstanding).length === 0) break;
      return { kind: "ask", result: { resultType: "input_required", inputRequests: outstanding } };
    }
    for (const key of answered) answers[key] = parseElicitationResponse(key, inputResponses[key]);
  }
  return { kind: "start", answers };
}

function questionsLeft(tool: JobTool, input: unknown, answers: Readonly<Record<string, ElicitationResponse>>): Record<string, InputRequest> {
  try {
    return tool.inputBeforeStart?.(input, answers) ?? {};
  } catch (error) {
    // The tool refusing an answer's content (a field of the wrong type) is the client's to fix.
    if (!(error instanceof InvalidToolInputError)) throw error;
    throw new TaskProtocolError(errorCodes.invalidParams, `Invalid params: inputResponses: ${error.field}: ${error.problem}`, { field: error.field });
  }
}
