import { isPlainObject } from "@jobtasks/core/adapter-utils";
import { errorCodes } from "./protocol-error.js";
import { unsafeFieldName } from "./check-form-answer.js";

/**
 * tasks/update's `inputResponses` must map each input request key to an answer object. The SDK lifts
 * `inputResponses` out of every request before any handler runs, and turns a value that is not an object
 * (`"yes"`, a list) into `{}` and an entry that is not one into nothing, so a handler would acknowledge an
 * answer that was never delivered. Both are refused here, and so is a `__proto__` field in an answer's
 * content (as task_answer refuses it), from the raw message, before the SDK sees it
 * (routeRequest hands this every tasks/update).
 */
export function malformedInputResponses(
  message: unknown,
):
  | { jsonrpc: "2.0"; id: string | number; error: { code: number; message: string; data: { field: string } } }
  | undefined {
  if (!isPlainObject(message)) return undefined;
  const id = message["id"];
  const params = message["params"];
  if ((typeof id !== "string" && typeof id !== "number") || !isPlainObject(params) || !("inputResponses" in params))
    return undefined;
  const problem = inputResponsesProblem(params["inputResponses"]);
  if (!problem) return undefined;
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: errorCodes.invalidParams,
      message: `Invalid params: ${problem.field} ${problem.expected}`,
      data: { field: problem.field },
    },
  };
}

function inputResponsesProblem(value: unknown): { field: string; expected: string } | undefined {
  if (!isPlainObject(value))
    return { field: "inputResponses", expected: "must be an object mapping each input request key to its answer" };
  for (const [key, answer] of Object.entries(value)) {
    if (!isPlainObject(answer) || "method" in answer || "result" in answer) {
      return {
        field: `inputResponses.${key}`,
        expected: 'must be the answer itself, an object such as {"action": "accept", "content": {...}}',
      };
    }
    // Checked on the raw message: a copy made on the way (the SDK's parse) could drop the field unseen.
    const unsafe = unsafeFieldName(answer["content"]);
    if (unsafe !== undefined)
      return { field: `inputResponses.${key}.content.${unsafe}`, expected: "is not a name a form's field can have" };
  }
  return undefined;
}
