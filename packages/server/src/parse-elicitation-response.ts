import type { ElicitationResponse, InputRequest } from "@jobtasks/core";
import { missingRequiredField, unsafeFieldName } from "./check-form-answer.js";
import { errorCodes, TaskProtocolError } from "./protocol-error.js";

/**
 * Check one answer from tasks/update before it reaches an adapter: inputResponses arrive from the client
 * and the SDK does not validate them. A malformed answer is -32602 naming the key; an accept that leaves
 * out a field the question's form requires is -32602 naming the field, since adapters read a missing
 * approval as a rejection (a form's default is where its UI starts, not an answer). A `__proto__` field is
 * -32602 naming it, as task_answer refuses it: no form has such a field, and a copy would drop it unseen.
 */
export function parseElicitationResponse(key: string, value: unknown, request?: InputRequest): ElicitationResponse {
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
    throw new TaskProtocolError(
      errorCodes.invalidParams,
      `Invalid params: inputResponses.${key}.content must be an object`,
      {
        field: `inputResponses.${key}.content`,
      },
    );
  }
  const unsafe = unsafeFieldName(content);
  if (unsafe !== undefined) {
    const field = `inputResponses.${key}.content.${unsafe}`;
    throw new TaskProtocolError(
      errorCodes.invalidParams,
      `Invalid params: ${field} is not a name a form's field can have; nothing was sent`,
      { field },
    );
  }
  const missing =
    action === "accept" && request
      ? missingRequiredField(request, content as Record<string, unknown> | undefined)
      : undefined;
  if (missing !== undefined) {
    const field = `inputResponses.${key}.content.${missing}`;
    throw new TaskProtocolError(
      errorCodes.invalidParams,
      `Invalid params: ${field} is required to accept; nothing was sent`,
      { field },
    );
  }
  return content === undefined ? { action } : { action, content: content as ElicitationResponse["content"] & object };
}
