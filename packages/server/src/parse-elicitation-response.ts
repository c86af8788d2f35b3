import type { ElicitationResponse } from "@jobtasks/core";
import { errorCodes, TaskProtocolError } from "./protocol-error.js";

/**
 * Check one answer from tasks/update before it reaches an adapter: inputResponses arrive from the client
 * and the SDK does not validate them. A malformed answer is -32602 naming the key.
 */
export function parseElicitationResponse(key: string, value: unknown): ElicitationResponse {
  const candidate = value as { action?: unknown; content?: unknown } | null;
  const action = candidate?.action;
  if (action !== "accept" && action !== "decline" && action !== "cancel") {
    throw new TaskProtocolError(
      errorCodes.invalidParams,
      `Invalid params: inputResponses.${key}.action must be "accept", "decline" or "cancel"`,
      { field: `inputResponses.${key}.action` },
    );
  }
  const content = candidate?.content;
  if (content !== undefined && (typeof content !== "object" || content === null || Array.isArray(content))) {
    throw new TaskProtocolError(errorCodes.invalidParams, `Invalid params: inputResponses.${key}.content must be an object`, {
      field: `inputResponses.${key}.content`,
    });
  }
  return content === undefined ? { action } : { action, content: content as ElicitationResponse["content"] & object };
}
