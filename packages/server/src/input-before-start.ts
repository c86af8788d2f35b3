import {
  InvalidToolInputError,
  type CallToolResult,
  type JobTool,
  type StartInputRequest,
  type StartInputResponse,
} from "@jobtasks/core";
import { TaskIdTooLongError, type TaskIdSealer } from "./task-id.js";
import { openBeforeStartState, sealBeforeStartState } from "./before-start-state.js";
import { parseStartInputResponse } from "./parse-start-input-response.js";
import { errorCodes, TaskProtocolError } from "./protocol-error.js";

/** The protocol's answer when a request needs input first (multi round trip, 2026-07-28). */
export interface InputRequiredResult {
  resultType: "input_required";
  inputRequests: Record<string, StartInputRequest>;
  requestState: string;
}

/** What one tools/call brings for the questions asked before a start. */
export interface BeforeStartCall {
  principal: string;
  /** The answers sent with this request; undefined in a protocol era without multi round trip (2025). */
  inputResponses?: Readonly<Record<string, unknown>> | undefined;
  /** The requestState echoed from the previous round, if any. */
  requestState?: string | undefined;
  /** The client capabilities this request declared. */
  clientCapabilities?: Readonly<Record<string, unknown>> | undefined;
}

export type BeforeStart =
  | { kind: "start"; answers?: Readonly<Record<string, StartInputResponse>> }
  | { kind: "ask"; result: InputRequiredResult }
  | { kind: "refuse"; result: CallToolResult };

/** The client capability each kind of question needs. */
const capabilityFor: Readonly<Record<StartInputRequest["method"], string>> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots",
};

/**
 * Questions a tool asks before its job starts. They belong to the request itself, not to a task: the
 * answer is an input-required result, the client retries tools/call with `inputResponses` (and the
 * `requestState`, which carries earlier rounds' answers, sealed), and only when nothing is left unanswered
 * does the job start (and, with the extension, a task exist). Nothing is kept on the server.
 */
export function askBeforeStart(
  tool: JobTool,
  input: unknown,
  call: BeforeStartCall,
  sealer: TaskIdSealer,
  now: number,
): BeforeStart {
  if (!tool.inputBeforeStart) return { kind: "start" };
  const { inputResponses } = call;
  if (inputResponses === undefined) {
    return refuse(
      `${tool.name} asks questions before it starts, which only a client of protocol 2026-07-28 can answer.`,
    );
  }
  const answers =
    call.requestState === undefined
      ? {}
      : openBeforeStartState(sealer, tool.name, call.principal, call.requestState, now);
  // Only answers to questions the tool asks are read (and checked); other keys are ignored, as stale or
  // unrelated answers are on tasks/update. A question may depend on an earlier answer, so ask again until
  // the answers at hand settle nothing more (each pass reads at least one new key: bounded).
  for (;;) {
    const outstanding = questionsLeft(tool, input, answers);
    const answered = Object.keys(outstanding).filter(
      (key) => Object.hasOwn(inputResponses, key) && !Object.hasOwn(answers, key),
    );
    if (answered.length > 0) {
      for (const key of answered) answers[key] = parseStartInputResponse(key, outstanding[key]!, inputResponses[key]);
      continue;
    }
    if (Object.keys(outstanding).length === 0) return { kind: "start", answers };
    return ask(tool.name, answerable(outstanding, call.clientCapabilities ?? {}), answers, call, sealer, now);
  }
}

function ask(
  toolName: string,
  inputRequests: Record<string, StartInputRequest>,
  answers: Readonly<Record<string, StartInputResponse>>,
  call: BeforeStartCall,
  sealer: TaskIdSealer,
  now: number,
): BeforeStart {
  let requestState: string;
  try {
    requestState = sealBeforeStartState(sealer, toolName, call.principal, answers, now);
  } catch (error) {
    if (!(error instanceof TaskIdTooLongError)) throw error;
    return refuse(
      `The answers given to ${toolName} so far are too long to carry to the next question; answer more briefly.`,
    );
  }
  return { kind: "ask", result: { resultType: "input_required", inputRequests, requestState } };
}

/**
 * The questions this client can answer. A server must not rely on a capability the client did not
 * declare: questions it cannot answer are left out, and when none is left the call is refused (-32021).
 */
function answerable(
  outstanding: Record<string, StartInputRequest>,
  capabilities: Readonly<Record<string, unknown>>,
): Record<string, StartInputRequest> {
  const declared = (capability: string) =>
    typeof capabilities[capability] === "object" && capabilities[capability] !== null;
  const kept = Object.entries(outstanding).filter(([, request]) => declared(capabilityFor[request.method]));
  if (kept.length > 0) return Object.fromEntries(kept);
  const missing = [...new Set(Object.values(outstanding).map((request) => capabilityFor[request.method]))];
  throw new TaskProtocolError(
    errorCodes.missingRequiredClientCapability,
    `Missing required client capability: the tool needs an answer only a client with ${missing.join(" or ")} can give; declare it in this request's _meta clientCapabilities`,
    { requiredCapabilities: Object.fromEntries(missing.map((capability) => [capability, {}])) },
  );
}

function questionsLeft(
  tool: JobTool,
  input: unknown,
  answers: Readonly<Record<string, StartInputResponse>>,
): Record<string, StartInputRequest> {
  try {
    return tool.inputBeforeStart?.(input, answers) ?? {};
  } catch (error) {
    // The tool refusing an answer's content (a field of the wrong type) is the client's to fix.
    if (!(error instanceof InvalidToolInputError)) throw error;
    throw new TaskProtocolError(
      errorCodes.invalidParams,
      `Invalid params: inputResponses: ${error.field}: ${error.problem}`,
      { field: error.field },
    );
  }
}

function refuse(text: string): BeforeStart {
  return { kind: "refuse", result: { content: [{ type: "text", text }], isError: true } };
}
