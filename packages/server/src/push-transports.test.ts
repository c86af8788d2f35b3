import { afterEach, describe, expect, it } from "vitest";
import { InMemoryTransport, type JSONRPCMessage } from "@modelcontextprotocol/server";
import { TaskIdSealer } from "./task-id.js";
import { createSilentLogger } from "./logger.js";
import { TaskService } from "./task-service.js";
import { startHttpServer, type RunningHttpServer } from "./http-server.js";
import { startStdioServer } from "./stdio-server.js";
import { completedSnapshot, createScriptedAdapter } from "../../../test/support/scripted-adapter.js";

const envelope = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "push-test", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};

function setup() {
  const scripted = createScriptedAdapter();
  const service = new TaskService({
    adapters: [{ name: "scripted", adapter: scripted.adapter }],
    sealer: new TaskIdSealer({ secret: "push-transport-test-secret-0123456789abc" }),
    logger: createSilentLogger(),
    snapshotCacheMs: 0,
  });
  return { scripted, service };
}

let http: RunningHttpServer | undefined;
afterEach(async () => {
  await http?.close();
  http = undefined;
});

describe("task push over Streamable HTTP", () => {
  it("streams the acknowledgement, each change and a closing result over SSE", async () => {
    const { scripted, service } = setup();
    http = await startHttpServer({
      service,
      logger: createSilentLogger(),
      name: "push",
      version: "1.0.0",
      port: 0,
      subscriptionIntervalMs: 10,
    });
    const post = (id: number, method: string, params: Record<string, unknown>, name?: string) =>
      fetch(http!.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": method,
          ...(name ? { "mcp-name": name } : {}),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: envelope } }),
      });
    const created = (await (
      await post(1, "tools/call", { name: "scripted_job", arguments: {} }, "scripted_job")
    ).json()) as { result: { taskId: string } };
    expect(created.result).not.toHaveProperty("content");
    const taskId = created.result.taskId;
    setTimeout(() => scripted.update(scripted.onlyJob(), completedSnapshot("pushed result")), 50);
    const response = await post(2, "subscriptions/listen", { notifications: { taskIds: [taskId] } });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const messages = (await response.text())
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
    const kinds = messages.map((message) => message["method"] ?? "result");
    // How many working updates arrive depends on timing; the frame order does not.
    expect(kinds[0]).toBe("notifications/subscriptions/acknowledged");
    expect(kinds.at(-1)).toBe("result");
    expect(kinds.slice(1, -1).every((kind) => kind === "notifications/tasks")).toBe(true);
    const last = messages.at(-2)!;
    expect(last).toMatchObject({
      params: { taskId, status: "completed", result: { content: [{ text: "pushed result" }] } },
    });
  });

  it("answers a listen for tasks without the extension with -32021", async () => {
    const { service } = setup();
    http = await startHttpServer({ service, logger: createSilentLogger(), name: "push", version: "1.0.0", port: 0 });
    const response = await fetch(http.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "subscriptions/listen",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 3,
        method: "subscriptions/listen",
        params: {
          notifications: { taskIds: ["anything"] },
          _meta: { ...envelope, "io.modelcontextprotocol/clientCapabilities": {} },
        },
      }),
    });
    expect(await response.json()).toMatchObject({ id: 3, error: { code: -32021 } });
  });
});

describe("task push over stdio", () => {
  it("serves task subscriptions beside ordinary requests on the same connection", async () => {
    const { scripted, service } = setup();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const received: Array<Record<string, unknown>> = [];
    clientSide.onmessage = (message) => received.push(JSON.parse(JSON.stringify(message)) as Record<string, unknown>);
    await clientSide.start();
    const handle = startStdioServer({
      service,
      logger: createSilentLogger(),
      name: "push",
      version: "1.0.0",
      transport: serverSide,
      subscriptionIntervalMs: 10,
    });
    const send = (message: Record<string, unknown>) => clientSide.send(message as JSONRPCMessage);
    // Bounded by time, not by a count of sleeps, and generous: a loaded CI machine may be slow to answer.
    const waitFor = async (predicate: (message: Record<string, unknown>) => boolean) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = received.find(predicate);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no such message; received ${JSON.stringify(received)}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    try {
      await send({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: envelope } });
      await waitFor((message) => message["id"] === 1);
      await send({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "scripted_job", arguments: {}, _meta: envelope },
      });
      const created = (await waitFor((message) => message["id"] === 2)) as {
        result: { taskId: string; resultType: string };
      };
      expect(created.result.resultType).toBe("task");
      expect(created.result).not.toHaveProperty("content");
      await send({
        jsonrpc: "2.0",
        id: 3,
        method: "subscriptions/listen",
        params: { notifications: { taskIds: [created.result.taskId] }, _meta: envelope },
      });
      await waitFor((message) => message["method"] === "notifications/subscriptions/acknowledged");
      scripted.update(scripted.onlyJob(), completedSnapshot("over stdio"));
      const final = await waitFor(
        (message) =>
          message["method"] === "notifications/tasks" &&
          (message["params"] as { status: string }).status === "completed",
      );
      expect(final).toMatchObject({
        params: { taskId: created.result.taskId, result: { content: [{ text: "over stdio" }] } },
      });
      await waitFor((message) => message["id"] === 3 && "result" in message);
    } finally {
      await handle.close();
    }
  });
});
