import { describe, expect, it, vi } from "vitest";
import { TaskIdSealer } from "./task-id.js";
import { type CreateTaskResult } from "./task-shape.js";
import { createSilentLogger } from "./logger.js";
import { TaskService } from "./task-service.js";
import { parseTaskListenRequest, runTaskSubscription, type OutgoingMessage } from "./task-subscription.js";
import { completedSnapshot, createScriptedAdapter, workingSnapshot } from "../../../test/support/scripted-adapter.js";

const declared = {
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};

function setup(pollIntervalMs = 50) {
  const scripted = createScriptedAdapter({ pollIntervalMs });
  const service = new TaskService({
    adapters: [{ name: "scripted", adapter: scripted.adapter }],
    sealer: new TaskIdSealer({ secret: "subscription-test-secret-0123456789abcdef" }),
    logger: createSilentLogger(),
    snapshotCacheMs: 0,
  });
  return { scripted, service };
}

describe("parseTaskListenRequest", () => {
  it("recognises listen requests with task ids and reads the per-request declaration", () => {
    expect(
      parseTaskListenRequest({
        jsonrpc: "2.0",
        id: 4,
        method: "subscriptions/listen",
        params: { notifications: { taskIds: ["a"] }, _meta: declared },
      }),
    ).toEqual({
      id: 4,
      taskIds: ["a"],
      declaresTasks: true,
    });
    expect(
      parseTaskListenRequest({
        jsonrpc: "2.0",
        id: 4,
        method: "subscriptions/listen",
        params: { notifications: { taskIds: [] } },
      })?.declaresTasks,
    ).toBe(false);
  });

  it("leaves every other message to the SDK", () => {
    expect(
      parseTaskListenRequest({
        jsonrpc: "2.0",
        id: 1,
        method: "subscriptions/listen",
        params: { notifications: { toolsListChanged: true } },
      }),
    ).toBeUndefined();
    expect(
      parseTaskListenRequest({
        jsonrpc: "2.0",
        method: "subscriptions/listen",
        params: { notifications: { taskIds: [] } },
      }),
    ).toBeUndefined();
    expect(parseTaskListenRequest("not an object")).toBeUndefined();
  });
});

describe("runTaskSubscription", () => {
  it("refuses a client that did not declare the extension with -32021", async () => {
    const { service } = setup();
    const sent: OutgoingMessage[] = [];
    await runTaskSubscription({
      service,
      logger: createSilentLogger(),
      principal: "alice",
      request: { id: 9, taskIds: [], declaresTasks: false },
      send: (message) => sent.push(message),
      signal: new AbortController().signal,
    });
    expect(sent).toEqual([
      {
        jsonrpc: "2.0",
        id: 9,
        error: expect.objectContaining({
          code: -32021,
          data: { requiredCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } },
        }),
      },
    ]);
  });

  it("acknowledges only the caller's own task ids, pushes each change as the full task, and ends when all are terminal", async () => {
    const { service, scripted } = setup();
    const alice = { principal: "alice", signal: new AbortController().signal, tasksDeclared: true };
    const mine = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    const bobs = (await service.callTool("scripted_job", {}, { ...alice, principal: "bob" })) as CreateTaskResult;
    const job = scripted.jobs.get("job-1")!;
    const sent: OutgoingMessage[] = [];
    let reads = 0;
    const done = runTaskSubscription({
      service,
      logger: createSilentLogger(),
      principal: "alice",
      request: { id: "listen-1", taskIds: [mine.taskId, bobs.taskId, "garbage", 42, mine.taskId], declaresTasks: true },
      signal: new AbortController().signal,
      intervalMs: 5,
      send: (message) => {
        sent.push(message);
        if (message["method"] === "notifications/tasks") {
          reads += 1;
          if (reads === 1) scripted.update(job, workingSnapshot("step 2/3: test"));
          if (reads === 2) scripted.update(job, completedSnapshot("all green"));
        }
      },
    });
    await done;
    const stamp = { "io.modelcontextprotocol/subscriptionId": "listen-1" };
    expect(sent[0]).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: { taskIds: [mine.taskId] }, _meta: stamp },
    });
    const updates = sent
      .filter((message) => message["method"] === "notifications/tasks")
      .map((message) => message["params"] as Record<string, unknown>);
    expect(updates.map((task) => task["status"])).toEqual(["working", "working", "completed"]);
    expect(updates.map((task) => task["statusMessage"])).toEqual([
      "started job",
      "step 2/3: test",
      "the job succeeded",
    ]);
    expect(updates[2]).toMatchObject({
      taskId: mine.taskId,
      result: { resultType: "complete", content: [{ type: "text", text: "all green" }] },
      _meta: stamp,
    });
    // Exactly what tasks/get answers, but for resultType, which belongs to a response.
    const { _meta, ...pushed } = updates[2]!;
    const { lastUpdatedAt: _ignored, ...fromGet } = await service.getTask(mine.taskId, alice);
    expect({ ...pushed, lastUpdatedAt: undefined }).toEqual({ ...fromGet, lastUpdatedAt: undefined });
    expect(sent.at(-1)).toEqual({ jsonrpc: "2.0", id: "listen-1", result: { resultType: "complete", _meta: stamp } });
    expect(JSON.stringify(sent)).not.toContain(bobs.taskId);
  });

  it("reads each task no more often than its own pollIntervalMs asks", async () => {
    const { service, scripted } = setup(200);
    const alice = { principal: "alice", signal: new AbortController().signal, tasksDeclared: true };
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    const readsBefore = scripted.readTimes.length;
    const controller = new AbortController();
    const done = runTaskSubscription({
      service,
      logger: createSilentLogger(),
      principal: "alice",
      request: { id: 1, taskIds: [created.taskId], declaresTasks: true },
      signal: controller.signal,
      intervalMs: 5,
      send: () => {},
    });
    // However slow the machine, wait for three reads rather than for a fixed time.
    await vi.waitUntil(() => scripted.readTimes.length - readsBefore >= 3, { timeout: 15_000, interval: 5 });
    controller.abort();
    await done;
    // Every two reads at least the task's 200 ms apart, where the 5 ms interval alone would allow 5 ms.
    const reads = scripted.readTimes.slice(readsBefore);
    const gaps = reads.slice(1).map((readAt, index) => readAt - reads[index]!);
    expect(gaps.length).toBeGreaterThanOrEqual(2);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(200);
  });

  it("keeps notifying about the other tasks while one task's upstream read hangs", async () => {
    const { service, scripted } = setup(20);
    const alice = { principal: "alice", signal: new AbortController().signal, tasksDeclared: true };
    const slow = (await service.callTool("scripted_job", { label: "slow" }, alice)) as CreateTaskResult;
    const fast = (await service.callTool("scripted_job", { label: "fast" }, alice)) as CreateTaskResult;
    const read = scripted.adapter.doGetStatus.bind(scripted.adapter);
    scripted.adapter.doGetStatus = (ref, ctx) =>
      ref.jobId === "job-1" ? new Promise(() => undefined) : read(ref, ctx);
    scripted.update(scripted.jobs.get("job-2")!, completedSnapshot("fast done"));
    const controller = new AbortController();
    const sent: OutgoingMessage[] = [];
    const done = runTaskSubscription({
      service,
      logger: createSilentLogger(),
      principal: "alice",
      request: { id: 7, taskIds: [slow.taskId, fast.taskId], declaresTasks: true },
      signal: controller.signal,
      intervalMs: 5,
      send: (message) => sent.push(message),
    });
    await vi.waitUntil(
      () => sent.some((message) => (message["params"] as { taskId?: string } | undefined)?.taskId === fast.taskId),
      { timeout: 5_000 },
    );
    controller.abort();
    await done;
    const fastUpdate = sent.find(
      (message) => (message["params"] as { taskId?: string } | undefined)?.taskId === fast.taskId,
    );
    expect(fastUpdate).toMatchObject({ params: { status: "completed" } });
  });

  it("stops quietly when the client goes away", async () => {
    const { service } = setup();
    const alice = { principal: "alice", signal: new AbortController().signal, tasksDeclared: true };
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    const controller = new AbortController();
    const sent: OutgoingMessage[] = [];
    const done = runTaskSubscription({
      service,
      logger: createSilentLogger(),
      principal: "alice",
      request: { id: 1, taskIds: [created.taskId], declaresTasks: true },
      signal: controller.signal,
      intervalMs: 5,
      send: (message) => sent.push(message),
    });
    setTimeout(() => controller.abort(), 30);
    await done;
    expect(sent.some((message) => "result" in message)).toBe(false);
  });
});
