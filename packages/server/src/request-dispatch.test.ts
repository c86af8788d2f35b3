import { describe, expect, it } from "vitest";
import type { IncomingHttpHeaders } from "node:http";
import { routeRequest, type HttpRequestFacts } from "./request-dispatch.js";
import { declaresTasksExtension } from "./declares-tasks-extension.js";

const declared = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "test", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};
const regionSchema = { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } };
const modernHeaders: IncomingHttpHeaders = { "mcp-protocol-version": "2026-07-28", "mcp-name": "deploy" };

function http(headers: IncomingHttpHeaders, servableTaskId?: string): HttpRequestFacts {
  return {
    headers,
    inputSchemaOf: (name) => (name === "deploy" ? regionSchema : undefined),
    fastTasksGet:
      servableTaskId === undefined
        ? undefined
        : { servableTaskId: () => servableTaskId, serve: () => Promise.resolve(false) },
  };
}

function request(method: string, params: Record<string, unknown>) {
  return { jsonrpc: "2.0", id: 3, method, params };
}

describe("routeRequest", () => {
  it("refuses a tasks/update whose inputResponses the SDK would silently drop, and only a tasks/update", () => {
    const route = routeRequest(request("tasks/update", { taskId: "t", inputResponses: "yes" }));
    expect(route).toMatchObject({ kind: "refuse", httpStatus: 200, answer: { id: 3, error: { code: -32602 } } });
    expect(routeRequest(request("tasks/update", { taskId: "t", inputResponses: { k: { action: "accept" } } }))).toEqual(
      { kind: "sdk", scope: { of: "task", taskId: "t" } },
    );
    expect(routeRequest(request("tools/call", { name: "x", inputResponses: "yes" }))).toEqual({
      kind: "sdk",
      scope: { of: "tool", name: "x" },
    });
  });

  it("refuses a tasks/update whose answer content has a __proto__ field, naming it", () => {
    // As a client's JSON arrives: JSON.parse makes __proto__ an own field, which a copy would drop unseen.
    const message = JSON.parse(
      '{"jsonrpc":"2.0","id":4,"method":"tasks/update","params":{"taskId":"t","inputResponses":' +
        '{"gate":{"action":"accept","content":{"approve":true,"__proto__":{"approve":false}}}}}}',
    ) as unknown;
    expect(routeRequest(message)).toEqual({
      kind: "refuse",
      httpStatus: 200,
      answer: {
        jsonrpc: "2.0",
        id: 4,
        error: {
          code: -32602,
          message: "Invalid params: inputResponses.gate.content.__proto__ is not a name a form's field can have",
          data: { field: "inputResponses.gate.content.__proto__" },
        },
      },
      scope: { of: "task", taskId: "t" },
    });
  });

  it("serves task subscriptions of subscriptions/listen only, and leaves other listen requests to the SDK", () => {
    const listen = request("subscriptions/listen", { notifications: { taskIds: ["a"] }, _meta: declared });
    expect(routeRequest(listen)).toEqual({ kind: "listen", listen: { id: 3, taskIds: ["a"], declaresTasks: true } });
    expect(routeRequest(request("subscriptions/listen", { notifications: { toolsListChanged: true } }))).toEqual({
      kind: "sdk",
    });
    expect(routeRequest(request("tasks/get", { notifications: { taskIds: ["a"] }, _meta: declared }))).toEqual({
      kind: "sdk",
    });
  });

  it("checks Mcp-Param headers of a tools/call over HTTP only", () => {
    const call = request("tools/call", { name: "deploy", arguments: { region: "eu" }, _meta: declared });
    const headers = { ...modernHeaders, "mcp-method": "tools/call" };
    expect(routeRequest(call, http(headers))).toMatchObject({ kind: "refuse", httpStatus: 400 });
    const scope = { of: "tool", name: "deploy" };
    expect(routeRequest(call, http({ ...headers, "mcp-param-region": "eu" }))).toEqual({ kind: "sdk", scope });
    // stdio has no headers to disagree with the body.
    expect(routeRequest(call)).toEqual({ kind: "sdk", scope });
    const list = {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/list",
      params: { name: "deploy", arguments: { region: "eu" } },
    };
    expect(routeRequest(list, http({ ...modernHeaders, "mcp-method": "tools/list" }))).toEqual({ kind: "sdk" });
  });

  it("takes the fast path for a tasks/get over HTTP that it may answer", () => {
    const get = request("tasks/get", { taskId: "t", _meta: declared });
    const scope = { of: "task", taskId: "t" };
    expect(routeRequest(get, http({}, "t"))).toEqual({ kind: "fast-tasks-get", taskId: "t", scope });
    expect(routeRequest(get, http({}))).toEqual({ kind: "sdk", scope });
    expect(routeRequest(get)).toEqual({ kind: "sdk", scope });
    expect(routeRequest(request("tasks/cancel", { taskId: "t", _meta: declared }), http({}, "t"))).toEqual({
      kind: "sdk",
      scope,
    });
  });

  it("names the scope check of each method family, whatever the route's kind, and none for the rest", () => {
    // tools/call: the tool's name, and its arguments' taskId, which a handle tool's check reads.
    expect(routeRequest(request("tools/call", { name: "deploy", arguments: { region: "eu" } }))).toEqual({
      kind: "sdk",
      scope: { of: "tool", name: "deploy" },
    });
    expect(routeRequest(request("tools/call", { name: "task_status", arguments: { taskId: "t" } }))).toEqual({
      kind: "sdk",
      scope: { of: "tool", name: "task_status", taskId: "t" },
    });
    // A call the headers refuse still carries its check, which over HTTP comes first.
    const mismatched = request("tools/call", { name: "deploy", arguments: { region: "eu" }, _meta: declared });
    expect(routeRequest(mismatched, http({ ...modernHeaders, "mcp-method": "tools/call" }))).toMatchObject({
      kind: "refuse",
      scope: { of: "tool", name: "deploy" },
    });
    expect(routeRequest(request("tools/call", { arguments: { taskId: "t" } }))).toEqual({ kind: "sdk" });
    // tasks/get, tasks/update and tasks/cancel: the task's id, whose starting tool's scopes it needs.
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      expect(routeRequest(request(method, { taskId: "t" })).scope, method).toEqual({ of: "task", taskId: "t" });
      expect(routeRequest(request(method, { taskId: 7 })), method).toEqual({ kind: "sdk" });
    }
    expect(routeRequest(request("tasks/update", { taskId: "t", inputResponses: "yes" }))).toMatchObject({
      kind: "refuse",
      scope: { of: "task", taskId: "t" },
    });
    // Everything else has no check of its own here (tools/list is filtered by the service; a subscription
    // follows only the tasks the caller's scopes allow).
    for (const method of ["tools/list", "subscriptions/listen", "ping", "tasks/list"])
      expect(routeRequest(request(method, { name: "deploy", taskId: "t" })).scope, method).toBeUndefined();
    expect(routeRequest({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }).scope).toBe(
      undefined,
    );
  });

  it("names the request a notifications/cancelled cancels", () => {
    const cancelled = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "listen-1" } };
    expect(routeRequest(cancelled)).toEqual({ kind: "cancelled", requestId: "listen-1" });
    expect(routeRequest({ ...cancelled, params: {} })).toEqual({ kind: "sdk" });
  });

  it("hands batches, non-objects and unknown methods to the SDK", () => {
    expect(routeRequest([request("tasks/update", { inputResponses: "yes" })])).toEqual({ kind: "sdk" });
    expect(routeRequest("not an object")).toEqual({ kind: "sdk" });
    expect(routeRequest(null)).toEqual({ kind: "sdk" });
    expect(routeRequest(request("ping", {}))).toEqual({ kind: "sdk" });
  });
});

describe("declaresTasksExtension", () => {
  it("is true only when _meta's client capabilities name the extension with an object", () => {
    expect(declaresTasksExtension(declared)).toBe(true);
    expect(declaresTasksExtension({})).toBe(false);
    expect(declaresTasksExtension(undefined)).toBe(false);
    expect(declaresTasksExtension({ "io.modelcontextprotocol/clientCapabilities": { extensions: {} } })).toBe(false);
    expect(
      declaresTasksExtension({
        "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": true } },
      }),
    ).toBe(false);
    expect(
      declaresTasksExtension({
        "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": null } },
      }),
    ).toBe(false);
  });
});
