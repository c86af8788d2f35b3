import { afterEach, describe, expect, it } from "vitest";
import { rawResult } from "./support/raw-rpc.js";
import { openListenStream } from "./support/listen-stream.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import {
  approvalRequest,
  completedSnapshot,
  createScriptedAdapter,
  inputRequiredSnapshot,
} from "./support/scripted-adapter.js";

/**
 * Push: subscriptions/listen with notifications.taskIds, acknowledged with the ids the server agreed to,
 * then notifications/tasks carrying the full task exactly as tasks/get returns it; nothing else on the
 * stream (no progress, no log messages).
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const aliceToken = "alice-token-0123456789abcdef";
const bobToken = "bob-token-fedcba9876543210xyz";

async function serve() {
  const scripted = createScriptedAdapter();
  const server = cleanup.add(
    await startInProcessServer({
      adapters: [{ name: "scripted", adapter: scripted.adapter }],
      tokens: `alice:${aliceToken},bob:${bobToken}`,
      subscriptionIntervalMs: 20,
    }),
  );
  const create = async (token: string) =>
    (await rawResult(server.url, "tools/call", { name: "scripted_job", arguments: {} }, { token }))["taskId"] as string;
  return { scripted, url: server.url, create };
}

/** A task without the fields that legitimately differ between two reads. */
function comparable(task: Record<string, unknown>) {
  const { lastUpdatedAt: _time, _meta, resultType: _resultType, ...rest } = task;
  return rest;
}

describe("push (subscriptions/listen)", () => {
  it("acknowledges only the caller's own task ids, then pushes each change as tasks/get shows it, and ends when terminal", async () => {
    const { scripted, url, create } = await serve();
    const mine = await create(aliceToken);
    const job = scripted.lastJob();
    const bobs = await create(bobToken);
    const stream = cleanup.add(await openListenStream(url, [mine, bobs, "not-a-task-id"], { token: aliceToken }));
    expect(stream.httpStatus).toBe(200);
    expect(stream.contentType).toContain("text/event-stream");

    const acknowledged = await stream.waitFor(
      (message) => message.method === "notifications/subscriptions/acknowledged",
    );
    expect(acknowledged.params?.["notifications"]["taskIds"]).toEqual([mine]);

    const working = await stream.waitFor(
      (message) => message.method === "notifications/tasks" && message.params?.["status"] === "working",
    );
    expect(working.params?.["taskId"]).toBe(mine);

    scripted.update(job, inputRequiredSnapshot({ "gate-1": approvalRequest() }));
    const waiting = await stream.waitFor(
      (message) => message.method === "notifications/tasks" && message.params?.["status"] === "input_required",
    );
    const viaGet = await rawResult(url, "tasks/get", { taskId: mine }, { token: aliceToken });
    expect(comparable(waiting.params!)).toEqual(comparable(viaGet));

    scripted.update(job, completedSnapshot("pushed result"));
    const completed = await stream.waitFor(
      (message) => message.method === "notifications/tasks" && message.params?.["status"] === "completed",
    );
    expect(completed.params?.["result"]).toEqual({
      resultType: "complete",
      content: [{ type: "text", text: "pushed result" }],
      structuredContent: { text: "pushed result" },
    });
    await stream.ended;

    const methods = stream.messages.map((message) => message.method).filter((method) => method !== undefined);
    expect(
      methods.filter(
        (method) => method !== "notifications/subscriptions/acknowledged" && method !== "notifications/tasks",
      ),
    ).toEqual([]);
    // Nothing about bob's task reached alice.
    expect(JSON.stringify(stream.messages)).not.toContain(bobs);
  });

  it("subscriptions/listen for tasks without the extension is -32021", async () => {
    const { url, create } = await serve();
    const mine = await create(aliceToken);
    const stream = cleanup.add(await openListenStream(url, [mine], { token: aliceToken, tasks: false }));
    await stream.ended;
    const error = stream.messages.find((message) => message.error)?.error;
    expect(error?.code).toBe(-32021);
    expect(error?.data).toEqual({ requiredCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } });
    expect(stream.messages.some((message) => message.method === "notifications/tasks")).toBe(false);
  });

  it("a listen whose Mcp-Method header is missing or contradicts the body is rejected like any other request", async () => {
    const { url, create } = await serve();
    const mine = await create(aliceToken);
    for (const mcpMethod of [undefined, "tools/list"]) {
      const stream = cleanup.add(await openListenStream(url, [mine], { token: aliceToken, mcpMethod }));
      await stream.close();
      // tools/call and tasks/* get HTTP 400 (-32020) for the same mistake; a router trusting the header
      // would send this stream to the wrong place.
      expect(stream.httpStatus, `Mcp-Method: ${String(mcpMethod)}`).toBe(400);
    }
  });
});
