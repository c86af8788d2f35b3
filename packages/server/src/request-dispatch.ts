import type { IncomingHttpHeaders } from "node:http";
import { malformedInputResponses } from "./malformed-input-responses.js";
import { parseTaskListenRequest, type TaskListenRequest } from "./task-subscription.js";
import { mcpParamHeaderMismatch } from "./mcp-param-headers.js";
import type { FastTasksGet } from "./fast-tasks-get.js";

/**
 * What happens to one inbound JSON-RPC message before the SDK sees it, decided once from its method, for
 * HTTP and stdio alike: the fast path, the task listener, the answer and header checks, and which scope
 * check the request needs. Only six methods are ever looked at more closely; every other message, and
 * every one of these six that needs nothing of us, goes on to the SDK untouched.
 */
export type RequestRoute = (
  | { kind: "sdk" }
  /** Answered here, with this message and (over HTTP) this status, since the SDK would answer it wrongly. */
  | { kind: "refuse"; httpStatus: number; answer: Record<string, unknown> }
  /** A task subscription, which the SDK's listen handling does not know. */
  | { kind: "listen"; listen: TaskListenRequest }
  /** notifications/cancelled naming a request: ends a task subscription when that request is one. */
  | { kind: "cancelled"; requestId: string | number }
  /** A tasks/get the fast path answers (HTTP only; see fast-tasks-get.ts). */
  | { kind: "fast-tasks-get"; taskId: string }
) & {
  /**
   * What the request's scope check reads, whatever the route's kind: over HTTP it runs before the route is
   * followed (scopesMissingFor in http-authorization.ts). Absent when the method needs no check of its own,
   * or the field the check reads is not there (the SDK or the service then refuses the request, as for
   * anyone). stdio reads none of it: its one caller, the local principal, holds every scope.
   */
  scope?: ScopeCheck;
};

/** The scope check a request needs, by its method. */
export type ScopeCheck =
  /**
   * tools/call: the scopes of the tool it names; for a handle tool (task_status, task_answer, ...), those of
   * the tool that started the task its arguments' taskId names.
   */
  | { of: "tool"; name: string; taskId?: string }
  /** tasks/get, tasks/update and tasks/cancel: the scopes of the tool that started the task. */
  | { of: "task"; taskId: string };

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
  const { method, params } = message as { method?: unknown; params?: Record<string, unknown> };
  switch (method) {
    case "tasks/update": {
      const answer = malformedInputResponses(message);
      return withTaskScope(answer ? { kind: "refuse", httpStatus: 200, answer } : toSdk, params);
    }
    case "subscriptions/listen": {
      const listen = parseTaskListenRequest(message);
      return listen ? { kind: "listen", listen } : toSdk;
    }
    case "tools/call": {
      const answer = http && mcpParamHeaderMismatch(message, http.headers, http.inputSchemaOf);
      return withToolScope(answer ? { kind: "refuse", httpStatus: 400, answer } : toSdk, params);
    }
    case "tasks/get": {
      const taskId = http?.fastTasksGet?.servableTaskId(http.headers, message);
      return withTaskScope(taskId !== undefined ? { kind: "fast-tasks-get", taskId } : toSdk, params);
    }
    case "tasks/cancel":
      return withTaskScope(toSdk, params);
    case "notifications/cancelled": {
      const requestId = params?.["requestId"];
      return typeof requestId === "string" || typeof requestId === "number" ? { kind: "cancelled", requestId } : toSdk;
    }
    default:
      return toSdk;
  }
}

function withTaskScope(route: RequestRoute, params: Record<string, unknown> | undefined): RequestRoute {
  const taskId = params?.["taskId"];
  return typeof taskId === "string" ? { ...route, scope: { of: "task", taskId } } : route;
}

function withToolScope(route: RequestRoute, params: Record<string, unknown> | undefined): RequestRoute {
  const name = params?.["name"];
  if (typeof name !== "string") return route;
  const taskId = (params?.["arguments"] as { taskId?: unknown } | undefined)?.taskId;
  return { ...route, scope: typeof taskId === "string" ? { of: "tool", name, taskId } : { of: "tool", name } };
}
