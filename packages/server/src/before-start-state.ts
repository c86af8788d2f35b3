import type { JsonValue, StartInputResponse } from "@jobtasks/core";
import type { TaskIdSealer } from "./task-id.js";
import { errorCodes, TaskProtocolError } from "./protocol-error.js";

/**
 * The `requestState` of the questions a tool asks before its job starts: the answers of earlier rounds,
 * which a multi-round-trip client does not send again. Sealed like a task id (encrypted, authenticated,
 * bound to the caller), under a marker no adapter instance can be named ("~" is not allowed in names),
 * so that a state never opens as a task id nor a task id as a state. Nothing is stored on the server.
 */

const marker = "~before-start";
/** A person may take a while to answer a form; past this, the questions start over. */
export const beforeStartStateTtlMs = 30 * 60 * 1000;

export function sealBeforeStartState(
  sealer: TaskIdSealer,
  toolName: string,
  principal: string,
  answers: Readonly<Record<string, StartInputResponse>>,
  now: number,
): string {
  return sealer.seal(
    { instance: marker, tool: toolName, ref: answers as unknown as JsonValue, createdAt: now },
    principal,
  );
}

/** The answers a state carries; -32602 for a state that was edited, expired, another caller's or tool's. */
export function openBeforeStartState(
  sealer: TaskIdSealer,
  toolName: string,
  principal: string,
  state: string,
  now: number,
): Record<string, StartInputResponse> {
  const opened = sealer.open(state, principal);
  const valid =
    opened && opened.instance === marker && opened.tool === toolName && now - opened.createdAt <= beforeStartStateTtlMs;
  if (!valid || typeof opened.ref !== "object" || opened.ref === null || Array.isArray(opened.ref)) {
    throw new TaskProtocolError(
      errorCodes.invalidParams,
      `Invalid params: requestState is not one this server gave for ${toolName} (edited, expired, or another caller's); call the tool again without it`,
      {
        field: "requestState",
      },
    );
  }
  return opened.ref as unknown as Record<string, StartInputResponse>;
}
