import { afterEach, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { rawCall, rawError, rawResult } from "./support/raw-rpc.js";
import { Cleanup, randomSecret, startInProcessServer } from "./support/in-process-server.js";
import { approvalRequest, createScriptedAdapter, inputRequiredSnapshot } from "./support/scripted-adapter.js";

/**
 * Task ids: unguessable, unforgeable, answered identically when unusable, expiring with the upstream's
 * retention, and readable by any replica that holds the secret (no sticky routing). Plus the Mcp-Name
 * header that lets load balancers route by task.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const notFound = { code: -32602, message: "Failed to retrieve task: Task not found" };

async function serve(options: { secret?: string; retentionMs?: number | null; now?: () => number } = {}) {
  const scripted = createScriptedAdapter({ retentionMs: options.retentionMs ?? null });
  const server = cleanup.add(
    await startInProcessServer({
      adapters: [{ name: "scripted", adapter: scripted.adapter }],
      ...(options.secret ? { secret: options.secret } : {}),
      ...(options.now ? { service: { now: options.now } } : {}),
    }),
  );
  const create = async () =>
    (await rawResult(server.url, "tools/call", { name: "scripted_job", arguments: {} }))["taskId"] as string;
  return { scripted, url: server.url, secret: server.secret, create };
}

/** Change one character of the sealed part, keeping the id well-formed. */
function tamper(taskId: string): string {
  const index = taskId.lastIndexOf(".") + 10;
  const replacement = taskId[index] === "A" ? "B" : "A";
  return taskId.slice(0, index) + replacement + taskId.slice(index + 1);
}

async function expectNotFoundEverywhere(url: string, taskId: unknown) {
  for (const [method, params] of [
    ["tasks/get", { taskId }],
    [
      "tasks/update",
      { taskId, inputResponses: { "job-1-approval-1": { action: "accept", content: { approve: true } } } },
    ],
    ["tasks/cancel", { taskId }],
  ] as const) {
    const error = await rawError(url, method, params);
    // Same code, same message, no data: nothing tells an unknown id from someone else's.
    expect(error, `${method} ${String(taskId).slice(0, 40)}`).toEqual(notFound);
  }
}

describe("task ids", () => {
  it("unknown, malformed, tampered, random and other servers' ids all get the same -32602 with no detail", async () => {
    const { url, create, scripted } = await serve();
    const taskId = await create();
    scripted.update(scripted.onlyJob(), inputRequiredSnapshot({ "job-1-approval-1": approvalRequest() }));
    const keyId = taskId.split(".")[1]!;
    const other = await serve();
    const foreign = await other.create();
    const candidates = [
      "unknown",
      "",
      "jt1..",
      "jt1.x.y",
      `jt1.${keyId}.${"A".repeat(80)}`,
      `jt1.${keyId}.${randomBytes(90).toString("base64url")}`,
      tamper(taskId),
      taskId.slice(0, -4),
      `${taskId}AAAA`,
      taskId.replace(/^jt1/, "jt2"),
      "x".repeat(5000),
      foreign,
    ];
    for (const candidate of candidates) await expectNotFoundEverywhere(url, candidate);
    expect(scripted.calls.respond).toBe(0);
    expect(scripted.calls.cancel).toBe(0);
    // The real id still works.
    expect((await rawResult(url, "tasks/get", { taskId }))["status"]).toBe("input_required");
  });

  it("ids are unguessable and do not show the upstream reference", async () => {
    const { create } = await serve();
    const first = await create();
    const second = await create();
    expect(first).not.toBe(second);
    for (const taskId of [first, second]) {
      expect(taskId.length).toBeGreaterThan(40);
      const decoded = Buffer.from(taskId.split(".")[2]!, "base64url").toString("latin1");
      expect(decoded).not.toContain("job-");
      expect(taskId).not.toContain("job-");
    }
  });

  it("an expired task (past createdAt + ttlMs) is -32602", async () => {
    let now = Date.parse("2026-11-01T10:00:00Z");
    const { url, create } = await serve({ retentionMs: 60_000, now: () => now });
    const taskId = await create();
    expect((await rawResult(url, "tasks/get", { taskId }))["status"]).toBe("working");
    now += 60_001;
    const error = await rawError(url, "tasks/get", { taskId });
    expect(error.code).toBe(-32602);
    expect(error.data).toBeUndefined();
  });
});

describe("no sticky routing", () => {
  it("two server instances with the same secret answer the same task id", async () => {
    const secret = randomSecret();
    const scripted = createScriptedAdapter();
    const adapters = [{ name: "scripted", adapter: scripted.adapter }];
    const first = cleanup.add(await startInProcessServer({ adapters, secret }));
    const second = cleanup.add(await startInProcessServer({ adapters, secret }));
    const taskId = (await rawResult(first.url, "tools/call", { name: "scripted_job", arguments: {} }))[
      "taskId"
    ] as string;
    scripted.update(scripted.onlyJob(), inputRequiredSnapshot({ "job-1-approval-1": approvalRequest() }));
    const seenBySecond = await rawResult(second.url, "tasks/get", { taskId });
    expect(seenBySecond["taskId"]).toBe(taskId);
    expect(seenBySecond["status"]).toBe("input_required");
    await rawResult(second.url, "tasks/update", {
      taskId,
      inputResponses: { "job-1-approval-1": { action: "accept", content: { approve: true } } },
    });
    expect(scripted.onlyJob().responses).toHaveLength(1);
    await rawResult(first.url, "tasks/cancel", { taskId });
    expect(scripted.onlyJob().cancelRequested).toBe(true);
  });

  it("an instance with a different secret does not know the id", async () => {
    const scripted = createScriptedAdapter();
    const adapters = [{ name: "scripted", adapter: scripted.adapter }];
    const first = cleanup.add(await startInProcessServer({ adapters }));
    const stranger = cleanup.add(await startInProcessServer({ adapters }));
    const taskId = (await rawResult(first.url, "tools/call", { name: "scripted_job", arguments: {} }))[
      "taskId"
    ] as string;
    expect(await rawError(stranger.url, "tasks/get", { taskId })).toEqual(notFound);
  });
});

describe("the Mcp-Name header", () => {
  it("a tasks/* request without Mcp-Name is rejected; with it, served", async () => {
    const { url, create } = await serve();
    const taskId = await create();
    for (const method of ["tasks/get", "tasks/cancel"]) {
      const without = await rawCall(url, method, { taskId }, { omitMcpName: true });
      expect(without.body?.result, method).toBeUndefined();
      expect(without.body?.error, method).toBeDefined();
      expect(without.httpStatus, method).toBe(400);
    }
    const served = await rawCall(url, "tasks/get", { taskId });
    expect(served.httpStatus).toBe(200);
    expect(served.body?.result?.["taskId"]).toBe(taskId);
  });

  it("a tasks/* request without Mcp-Method, or with one that contradicts the body, is rejected", async () => {
    const { url, create } = await serve();
    const taskId = await create();
    const without = await rawCall(url, "tasks/get", { taskId }, { omitMcpMethod: true });
    expect(without.httpStatus).toBe(400);
    expect(without.body?.result).toBeUndefined();
    const contradicting = await rawCall(url, "tasks/get", { taskId }, { headers: { "mcp-method": "tasks/cancel" } });
    expect(contradicting.httpStatus).toBe(400);
    expect(contradicting.body?.result).toBeUndefined();
  });

  it("an Mcp-Name that names another task is rejected", async () => {
    const { url, create } = await serve();
    const taskId = await create();
    const otherId = await create();
    const response = await rawCall(url, "tasks/get", { taskId }, { headers: { "mcp-name": otherId } });
    expect(response.httpStatus).toBe(400);
    expect(response.body?.result).toBeUndefined();
  });

  it("tools/call without Mcp-Name (the tool name) is rejected and starts nothing", async () => {
    const { url, scripted } = await serve();
    const response = await rawCall(url, "tools/call", { name: "scripted_job", arguments: {} }, { omitMcpName: true });
    expect(response.httpStatus).toBe(400);
    expect(response.body?.result).toBeUndefined();
    expect(scripted.calls.start).toBe(0);
  });
});
