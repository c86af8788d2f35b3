import { afterEach, describe, expect, it } from "vitest";
import { InMemoryTransport, type JSONRPCMessage } from "@modelcontextprotocol/client";
import {
  TaskIdSealer,
  TaskService,
  createSilentLogger,
  startStdioServer,
  type ClientsWithoutTasks,
} from "@jobtasks/server";
import { envelope, rawCall, rawError, rawResult, tasksExtensionId } from "./support/raw-rpc.js";
import { Cleanup, randomSecret, startInProcessServer } from "./support/in-process-server.js";
import { createScriptedAdapter } from "./support/scripted-adapter.js";

/** Negotiation rules of the tasks extension: what the server announces, and who may get a task. */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function serve(options: { synchronousWaitMs?: number; clientsWithoutTasks?: ClientsWithoutTasks } = {}) {
  const scripted = createScriptedAdapter(options);
  const server = cleanup.add(
    await startInProcessServer({
      adapters: [{ name: "scripted", adapter: scripted.adapter }],
      ...(options.clientsWithoutTasks ? { service: { clientsWithoutTasks: options.clientsWithoutTasks } } : {}),
    }),
  );
  return { scripted, url: server.url };
}

const requiredCapability = { requiredCapabilities: { extensions: { [tasksExtensionId]: {} } } };

describe("negotiation", () => {
  it("server/discover lists the tasks extension as an empty object", async () => {
    const { url } = await serve();
    const result = await rawResult(url, "server/discover", {}, { tasks: false });
    expect(result["capabilities"]["extensions"][tasksExtensionId]).toEqual({});
  });

  it("tools/call without the extension is -32021 naming the extension in data.requiredCapabilities (refuse)", async () => {
    const { url, scripted } = await serve({ clientsWithoutTasks: "refuse" });
    const error = await rawError(url, "tools/call", { name: "scripted_job", arguments: {} }, { tasks: false });
    expect(error.code).toBe(-32021);
    expect(error.data).toEqual(requiredCapability);
    // Refused before anything started upstream: no orphan job that no client can ever see.
    expect(scripted.calls.start).toBe(0);
  });

  it("tools/call without the extension answers a handle by default: a plain result with the task id, never a task", async () => {
    const { url, scripted } = await serve();
    const response = await rawCall(url, "tools/call", { name: "scripted_job", arguments: {} }, { tasks: false });
    expect(response.text).not.toContain('"resultType":"task"');
    const result = response.body?.result ?? {};
    expect(result["resultType"]).toBe("complete");
    expect(result["structuredContent"]).toMatchObject({ taskId: expect.stringMatching(/^jt1\./), status: "working" });
    // The same id opens for tasks/get from a client with the extension.
    const task = await rawResult(url, "tasks/get", { taskId: result["structuredContent"]["taskId"] });
    expect(task["status"]).toBe("working");
    expect(scripted.calls.start).toBe(1);
  });

  it("a client that declares other extensions but not tasks is refused too (refuse)", async () => {
    const { url } = await serve({ clientsWithoutTasks: "refuse" });
    const meta = {
      ...envelope(false),
      "io.modelcontextprotocol/clientCapabilities": { extensions: { "example.com/other": {} } },
    };
    const error = await rawError(url, "tools/call", { name: "scripted_job", arguments: {} }, { meta });
    expect(error.code).toBe(-32021);
  });

  it("tasks/get, tasks/update and tasks/cancel without the extension are -32021", async () => {
    const { url, scripted } = await serve();
    const created = await rawResult(url, "tools/call", {
      name: "scripted_job",
      arguments: { startAs: "input_required" },
    });
    const taskId = created["taskId"] as string;
    for (const [method, params] of [
      ["tasks/get", { taskId }],
      [
        "tasks/update",
        { taskId, inputResponses: { "job-1-approval-1": { action: "accept", content: { approve: true } } } },
      ],
      ["tasks/cancel", { taskId }],
    ] as const) {
      const error = await rawError(url, method, params, { tasks: false });
      expect(error.code, method).toBe(-32021);
      expect(error.data, method).toEqual(requiredCapability);
    }
    expect(scripted.calls.respond).toBe(0);
    expect(scripted.calls.cancel).toBe(0);
  });

  it("the declaration counts for its own request only (HTTP): a later request without it gets no task", async () => {
    const { url } = await serve({ synchronousWaitMs: 200 });
    const first = await rawResult(url, "tools/call", { name: "scripted_job", arguments: { startAs: "completed" } });
    expect(first["resultType"]).toBe("task");
    const second = await rawResult(
      url,
      "tools/call",
      { name: "scripted_job", arguments: { startAs: "completed" } },
      { tasks: false },
    );
    expect(second["resultType"]).not.toBe("task");
    expect(second["taskId"]).toBeUndefined();
    expect(second["content"]).toEqual([{ type: "text", text: "finished job" }]);
  });

  it("the declaration counts for its own request only, even on one stdio connection", async () => {
    const scripted = createScriptedAdapter();
    const logger = createSilentLogger();
    const service = new TaskService({
      adapters: [{ name: "scripted", adapter: scripted.adapter }],
      sealer: new TaskIdSealer({ secret: randomSecret() }),
      logger,
      snapshotCacheMs: 0,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const stdio = startStdioServer({ service, logger, name: "e2e", version: "0", transport: serverSide as never });
    cleanup.defer(() => stdio.close());
    const answers = new Map<string | number, JSONRPCMessage>();
    clientSide.onmessage = (message) => {
      if ("id" in message && message.id !== undefined) answers.set(message.id, message);
    };
    await clientSide.start();
    const request = async (id: number, method: string, params: Record<string, unknown>, tasks: boolean) => {
      await clientSide.send({
        jsonrpc: "2.0",
        id,
        method,
        params: { ...params, _meta: envelope(tasks) },
      } as JSONRPCMessage);
      for (let attempt = 0; attempt < 200 && !answers.has(id); attempt += 1)
        await new Promise((resolve) => setTimeout(resolve, 10));
      return answers.get(id) as { result?: Record<string, unknown>; error?: { code: number } } | undefined;
    };

    const discovered = await request(1, "server/discover", {}, false);
    expect(discovered?.result).toBeDefined();
    const withTasks = await request(2, "tools/call", { name: "scripted_job", arguments: {} }, true);
    expect(withTasks?.result?.["resultType"]).toBe("task");
    const withoutTasks = await request(3, "tools/call", { name: "scripted_job", arguments: {} }, false);
    expect(withoutTasks?.result?.["resultType"]).not.toBe("task");
    expect(withoutTasks?.result?.["structuredContent"]).toMatchObject({ status: "working" });
    const getWithout = await request(4, "tasks/get", { taskId: withTasks?.result?.["taskId"] }, false);
    expect(getWithout?.error?.code).toBe(-32021);
    await clientSide.close();
  });

  it("a synchronous-capable tool answers a non-declaring client with a plain CallToolResult, never a task", async () => {
    const { url } = await serve({ synchronousWaitMs: 200 });
    const response = await rawCall(
      url,
      "tools/call",
      { name: "scripted_job", arguments: { startAs: "completed" } },
      { tasks: false },
    );
    expect(response.body?.error).toBeUndefined();
    expect(response.body?.result).toMatchObject({
      resultType: "complete",
      content: [{ type: "text", text: "finished job" }],
    });
    expect(response.text).not.toContain('"resultType":"task"');
    expect(response.body?.result?.["taskId"]).toBeUndefined();
    expect(response.body?.result?.["isError"]).not.toBe(true);
  });
});
