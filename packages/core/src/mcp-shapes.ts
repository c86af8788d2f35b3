import type { JsonObject } from "./json.js";

/**
 * The few MCP wire shapes the core needs, written out here so that the core depends on no SDK.
 * They follow the 2026-07-28 schema and the io.modelcontextprotocol/tasks extension.
 */

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

export const terminalTaskStatuses: ReadonlySet<TaskStatus> = new Set(["completed", "failed", "cancelled"]);

export function isTerminalStatus(status: TaskStatus): boolean {
  return terminalTaskStatuses.has(status);
}

/** A content block of a tool result. Text is the common case; other MCP blocks pass through untouched. */
export type ContentBlock = { type: "text"; text: string } | { type: string; [key: string]: unknown };

/** What tools/call would have returned: the `result` of a completed task. */
export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A JSON-RPC error object, as carried by a failed task's `error`. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: JsonObject;
}

/** A form elicitation, the one kind of input request jobtasks adapters issue. */
export interface ElicitationFormRequest {
  method: "elicitation/create";
  params: {
    mode: "form";
    message: string;
    requestedSchema: {
      type: "object";
      properties: Record<string, Record<string, unknown>>;
      required?: string[];
    };
  };
}

export type InputRequest = ElicitationFormRequest;

/** The client's answer to one elicitation. */
export interface ElicitationResponse {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, string | number | boolean | string[]>;
}

/** A request for the client's model to answer (sampling), as a tool may ask before its job starts. */
export interface SamplingRequest {
  method: "sampling/createMessage";
  params: {
    messages: Array<{ role: "user" | "assistant"; content: ContentBlock }>;
    maxTokens: number;
    systemPrompt?: string;
  };
}

/** A request for the client's roots (the directories or files it works in). */
export interface ListRootsRequest {
  method: "roots/list";
  params: Record<string, never>;
}

/** What a tool may ask before its job starts (multi round trip): a form, the client's model, its roots. */
export type StartInputRequest = InputRequest | SamplingRequest | ListRootsRequest;

/** The client's model's answer to a SamplingRequest. */
export interface SamplingResponse {
  role: "user" | "assistant";
  content: ContentBlock;
  model: string;
  stopReason?: string;
}

/** The client's answer to a ListRootsRequest. */
export interface ListRootsResponse {
  roots: Array<{ uri: string; name?: string }>;
}

/** The answer to a StartInputRequest, of the matching kind. */
export type StartInputResponse = ElicitationResponse | SamplingResponse | ListRootsResponse;
