import type { JsonObject } from "@jobtasks/core";

/** JSON-RPC error codes this server answers with. */
export const errorCodes = {
  invalidParams: -32602,
  internalError: -32603,
  missingRequiredClientCapability: -32021,
} as const;

export const tasksExtensionId = "io.modelcontextprotocol/tasks";

/**
 * An error the task service wants the client to see as a JSON-RPC error. The MCP layer turns it into the
 * SDK's ProtocolError; keeping our own class keeps the service free of the SDK.
 */
export class TaskProtocolError extends Error {
  readonly code: number;
  readonly data: JsonObject | undefined;
  constructor(code: number, message: string, data?: JsonObject) {
    super(message);
    this.name = "TaskProtocolError";
    this.code = code;
    this.data = data;
  }
}

/**
 * The one answer for every task id a caller may not use: unknown, forged, edited, another caller's, or from
 * an adapter this server no longer has. Identical on purpose, so that existence does not leak.
 */
export function taskNotFound(): TaskProtocolError {
  return new TaskProtocolError(errorCodes.invalidParams, "Failed to retrieve task: Task not found");
}

export function taskExpired(): TaskProtocolError {
  return new TaskProtocolError(errorCodes.invalidParams, "Failed to retrieve task: Task has expired");
}

export function tasksExtensionRequired(what: string): TaskProtocolError {
  return new TaskProtocolError(
    errorCodes.missingRequiredClientCapability,
    `Missing required client capability: ${what} needs the ${tasksExtensionId} extension; declare it in this request's _meta clientCapabilities`,
    { requiredCapabilities: { extensions: { [tasksExtensionId]: {} } } },
  );
}
