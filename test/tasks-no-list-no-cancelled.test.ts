import { afterEach, describe, expect, it } from "vitest";
import { InMemoryTransport, type JSONRPCMessage } from "@modelcontextprotocol/client";
import { TaskIdSealer, TaskService, createSilentLogger, startStdioServer } from "@jobtasks/server";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { rawCall, rawResult, envelope, pollUntil } from "./support/raw-rpc.js";
import { cancelledSnapshot, createScriptedAdapter } from "./support/scripted-adapter.js";

/**
 * Two rules stated as absences: there is no tasks/list (a caller learns of a task only from the answer
 * that created it), and tasks/cancel is answered, never signalled with notifications/cancelled.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe("rules of absence", () => {
  it("has no tasks/list: it is an unknown method, and lists nothing", async () => {
    const scripted = createScriptedAdapter();
    const server = cleanup.add(
      await startInProcessServer({ adapters: [{ name: "scripted", adapter: scripted.adapter }] }),
    );
    await rawResult(server.url, "tools/call", { name: "scripted_job", arguments: {} });
    const response = await rawCall(server.url, "tasks/list", {});
    expect(response.body?.error?.code).toBe(-32601);
    expect(response.text).not.toContain("jt1.");
  });

  it("answers tasks/cancel without sending notifications/cancelled (stdio, where every message is visible)", async () => {
    const scripted = createScriptedAdapter({ onCancel: (job) => scripted.update(job, cancelledSnapshot()) });
    const { adapter } = scripted;
    const service = new TaskService({
      adapters: [{ name: "scripted", adapter }],
      sealer: new TaskIdSealer({ secret: "absence-test-secret-0123456789abcdefgh" }),
      logger: createSilentLogger(),
      snapshotCacheMs: 0,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const received: Array<Record<string, any>> = [];
    clientSide.onmessage = (message) => received.push(JSON.parse(JSON.stringify(message)) as Record<string, any>);
    await clientSide.start();
    // The client and server packages each declare the same Transport shape; the cast bridges the two names.
    const handle = startStdioServer({
      service,
      logger: createSilentLogger(),
      name: "absence",
      version: "1.0.0",
      transport: serverSide as never,
    });
    cleanup.add({ close: () => handle.close() });
    const send = (message: Record<string, unknown>) => clientSide.send(message as JSONRPCMessage);
    const answer = (id: number) =>
      pollUntil(
        async () => received.find((message) => message["id"] === id),
        (found) => found !== undefined,
      );

    await send({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: envelope(true) } });
    await answer(1);
    await send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "scripted_job", arguments: {}, _meta: envelope(true) },
    });
    const taskId = (await answer(2))!["result"]["taskId"] as string;
    await send({ jsonrpc: "2.0", id: 3, method: "tasks/cancel", params: { taskId, _meta: envelope(true) } });
    expect((await answer(3))!["result"]).toMatchObject({ resultType: "complete" });
    await send({ jsonrpc: "2.0", id: 4, method: "tasks/get", params: { taskId, _meta: envelope(true) } });
    expect((await answer(4))!["result"]).toMatchObject({ status: "cancelled" });
    expect(received.filter((message) => message["method"] === "notifications/cancelled")).toEqual([]);
  });
});
