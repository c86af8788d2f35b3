import type { IncomingHttpHeaders } from "node:http";
import { malformedInputResponses } from "./malformed-input-responses.js";
import { parseTaskListenRequest, type TaskListenRequest } from "./task-subscription.js";
import { mcpParamHeaderMismatch } from "./mcp-param-headers.js";
import type { FastTasksGet } from "./fast-tasks-get.js";

/**
 * What happens to one inbound JSON-RPC message before the SDK sees it, decided once from its method, for
 * HTTP and stdio alike. Only four methods are ever looked at more closely; every other message, and every
 * one of these four that needs nothing of us, goes on to the SDK untouched.
 */
export type RequestRoute =
  | { kind: "sdk" }
  /** Answered here, with this message and (over HTTP) this status, since the SDK would answer it wrongly. */
  | { kind: "refuse"; httpStatus: number; answer: Record<string, unknown> }
  /** A task subscription, which the SDK's listen handling does not know. */
  | { kind: "listen"; listen: TaskListenRequest }
  /** notifications/cancelled naming a request: ends a task subscription when that request is one. */
  | { kind: "cancelled"; requestId: string | number }
  /** A tasks/get the fast path answers (HTTP only; see fast-tasks-get.ts). */
  | { kind: "fast-tasks-get"; taskId: string };

/** What only an HTTP request has: its headers, and the checks that read them. */
export interface HttpRequestFacts {
  headers: IncomingHttpHeaders;
  inputSchemaOf(toolName: string): Record<string, unknown> | undefined;
  /** Undefined when the fast path is turned off. */
  fastTasksGet: FastTasksGet | undefined;
}

const toSdk: RequestRoute = { kind: "sdk" };

/** Route one message; `http` is undefined on stdio, where no header exists to check. */
export function routeRequest(message: unknown, http?: HttpRequestFacts): RequestRoute {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return toSdk;
  switch ((message as { method?: unknown }).method) {
    case "tasks/update": {
      const answer = malformedInputResponses(message);
      return answer ? { kind: "refuse", httpStatus: 200, answer } : toSdk;
    }
    case "subscriptions/listen": {
      const listen = parseTaskListenRequest(message);
      return listen ? { kind: "listen", listen } : toSdk;
    }
    case "tools/call": {
      const answer = http && mcpParamHeaderMismatch(message, http.headers, http.inputSchemaOf);
      return answer ? { kind: "refuse", httpStatus: 400, answer } : toSdk;
    }
    case "tasks/get": {
      const taskId = http?.fastTasksGet?.servableTaskId(http.headers, message);
      return taskId !== undefined ? { kind: "fast-tasks-get", taskId } : toSdk;
    }
    case "notifications/cancelled": {
      const requestId = (message as { params?: { requestId?: unknown } }).params?.requestId;
      return typeof requestId === "string" || typeof requestId === "number" ? { kind: "cancelled", requestId } : toSdk;
    }
    default:
      return toSdk;
  }
}
