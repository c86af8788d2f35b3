import type { StartInputRequest, StartInputResponse } from "@jobtasks/core";
import { isPlainObject } from "@jobtasks/core/adapter-utils";
import { parseElicitationResponse } from "./parse-elicitation-response.js";
import { errorCodes, TaskProtocolError } from "./protocol-error.js";

/**
 * Check one answer to a question asked before a job starts, by the kind of question it answers: a form
 * answer, the client's model's message, or the client's roots. Answers arrive from the client and the SDK
 * does not validate them; a malformed one is -32602 naming the key.
 */
export function parseStartInputResponse(key: string, request: StartInputRequest, value: unknown): StartInputResponse {
  switch (request.method) {
    case "elicitation/create":
      return parseElicitationResponse(key, value);
    case "sampling/createMessage": {
      const candidate = asObject(value);
      const content = asObject(candidate?.["content"]);
      if (!candidate || (candidate["role"] !== "assistant" && candidate["role"] !== "user"))
        throw malformed(key, "role", 'must be "assistant" or "user"');
      if (!content || typeof content["type"] !== "string")
        throw malformed(key, "content", "must be a content block with a type");
      if (typeof candidate["model"] !== "string") throw malformed(key, "model", "must be a string");
      return candidate as unknown as StartInputResponse;
    }
    case "roots/list": {
      const roots = asObject(value)?.["roots"];
      if (!Array.isArray(roots) || !roots.every((root) => typeof asObject(root)?.["uri"] === "string")) {
        throw malformed(key, "roots", "must be a list of roots, each with a uri");
      }
      return { roots: roots as Array<{ uri: string; name?: string }> };
    }
  }
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return isPlainObject(value) ? value : undefined;
}

function malformed(key: string, field: string, problem: string): TaskProtocolError {
  return new TaskProtocolError(errorCodes.invalidParams, `Invalid params: inputResponses.${key}.${field} ${problem}`, {
    field: `inputResponses.${key}.${field}`,
  });
}
