import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, request as httpRequest } from "node:http";
import { TaskIdSealer } from "./task-id.js";
import { BearerTokens } from "./auth.js";
import { createSilentLogger } from "./logger.js";
import { TaskService } from "./task-service.js";
import { startHttpServer, type RunningHttpServer } from "./http-server.js";
import {
  approvalRequest,
  completedSnapshot,
  createScriptedAdapter,
  inputRequiredSnapshot,
  workingSnapshot,
  type ScriptedAdapter,
} from "../../../test/support/scripted-adapter.js";

/**
 * The tasks/get fast path must be invisible: every request, good or bad, gets the same answer from a
 * server with it as from one without it (the SDK path). Both servers share one TaskService, so the same
 * ids open on both; each request goes to both and the status, the headers (but Date and the framing ones)
 * and the body bytes are compared.
 */

const version = "2026-07-28";
const token = "fast-path-token-0123456789";
let scripted: ScriptedAdapter;
let service: TaskService;
let fast: RunningHttpServer;
let sdk: RunningHttpServer;
const agent = new Agent({ keepAlive: true });

beforeAll(async () => {
  scripted = createScriptedAdapter({ retentionMs: 60_000 });
  const logger = createSilentLogger();
  // A clock that stands still: lastUpdatedAt of a working task is the time it was read, and must not differ.
  const frozenNow = Date.now();
  service = new TaskService({
    now: () => frozenNow,
    adapters: [{ name: "scripted", adapter: scripted.adapter }],
    sealer: new TaskIdSealer({ secret: "fast-tasks-get-test-secret-0123456789abcdef" }),
    logger,
    snapshotCacheMs: 0,
  });
  const tokens = BearerTokens.parse(`alice:${token}`);
  const common = { service, logger, name: "fast-test", version: "1.2.3", port: 0, tokens };
  fast = await startHttpServer({ ...common });
  sdk = await startHttpServer({ ...common, fastTasksGet: false });
});

afterAll(async () => {
  agent.destroy();
  await fast.close();
  await sdk.close();
  await service.close();
});

interface Answer {
  status: number;
  /** Every header but those that only frame the message or tell the time. */
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const framingHeaders = new Set(["date", "connection", "keep-alive", "transfer-encoding", "content-length"]);

function post(url: string, headers: Record<string, string>, body: string): Promise<Answer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: Object.fromEntries(Object.entries(response.headers).filter(([name]) => !framingHeaders.has(name))),
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

function envelope(overrides: Record<string, unknown> = {}) {
  return {
    "io.modelcontextprotocol/protocolVersion": version,
    "io.modelcontextprotocol/clientInfo": { name: "fast-test-client", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
    ...overrides,
  };
}

function headersFor(taskId: string, overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const headers: Record<string, string | undefined> = {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": version,
    "mcp-method": "tasks/get",
    "mcp-name": taskId,
    ...overrides,
  };
  return Object.fromEntries(
    Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

function tasksGet(
  taskId: unknown,
  options: { id?: unknown; meta?: unknown; params?: Record<string, unknown>; extra?: Record<string, unknown> } = {},
) {
  const params = options.params ?? { taskId, _meta: options.meta ?? envelope() };
  return JSON.stringify({ jsonrpc: "2.0", id: options.id ?? 7, method: "tasks/get", params, ...options.extra });
}

async function startTask(startAs: "working" | "input_required" | "completed"): Promise<string> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "scripted_job", arguments: { label: startAs, startAs }, _meta: envelope() },
  });
  const answer = await post(sdk.url, headersFor("scripted_job", { "mcp-method": "tools/call" }), body);
  const taskId = (JSON.parse(answer.body) as { result?: { taskId?: unknown } }).result?.taskId;
  if (typeof taskId !== "string") throw new Error(`tools/call did not start a task: ${answer.body}`);
  return taskId;
}

async function expectSameAnswer(headers: Record<string, string>, body: string): Promise<Answer> {
  const viaFast = await post(fast.url, headers, body);
  const viaSdk = await post(sdk.url, headers, body);
  expect(viaFast).toEqual(viaSdk);
  return viaFast;
}

describe("tasks/get fast path", () => {
  it("answers working, input_required, completed and failed tasks byte for byte as the SDK does", async () => {
    const working = await startTask("working");
    const waiting = await startTask("input_required");
    scripted.update(scripted.lastJob(), inputRequiredSnapshot({ approve: approvalRequest() }));
    const completed = await startTask("completed");
    scripted.update(scripted.lastJob(), completedSnapshot("all done"));
    const failed = await startTask("working");
    scripted.update(scripted.lastJob(), completedSnapshot("the job failed", true));
    for (const [taskId, status] of [
      [working, "working"],
      [waiting, "input_required"],
      [completed, "completed"],
      [failed, "completed"],
    ] as const) {
      const answer = await expectSameAnswer(headersFor(taskId), tasksGet(taskId));
      expect(answer.status).toBe(200);
      expect((JSON.parse(answer.body) as { result: { status: string } }).result.status).toBe(status);
    }
    // String ids, and a client with a larger envelope, take the same path.
    await expectSameAnswer(headersFor(working), tasksGet(working, { id: "request-1" }));
    const richer = envelope({
      "io.modelcontextprotocol/clientInfo": { name: "other", version: "2.0.0", title: "Other client" },
    });
    await expectSameAnswer(headersFor(working), tasksGet(working, { meta: richer }));
  });

  it("carries a working task's progress in the result's _meta, beside the server's identity, as the SDK does", async () => {
    const taskId = await startTask("working");
    scripted.update(scripted.lastJob(), { ...workingSnapshot("step 2/5: build"), progress: { progress: 2, total: 5 } });
    const answer = await expectSameAnswer(headersFor(taskId), tasksGet(taskId));
    const result = (JSON.parse(answer.body) as { result: { status: string; _meta?: Record<string, unknown> } }).result;
    expect(result.status).toBe("working");
    expect(result._meta).toEqual({
      "io.jobtasks/progress": { progress: 2, total: 5 },
      "io.modelcontextprotocol/serverInfo": { name: "fast-test", version: "1.2.3" },
    });
  });

  it("refuses bad headers exactly as the SDK does", async () => {
    const taskId = await startTask("working");
    const body = tasksGet(taskId);
    const cases: Array<Record<string, string | undefined>> = [
      { "mcp-protocol-version": undefined },
      { "mcp-protocol-version": "2025-11-25" },
      { "mcp-protocol-version": "2099-01-01" },
      { "mcp-method": undefined },
      { "mcp-method": "tasks/cancel" },
      { "mcp-name": undefined },
      { "mcp-name": "another-id" },
      { "mcp-name": "=?base64?not base64?=" },
      { "mcp-name": `=?base64?${Buffer.from(taskId).toString("base64")}?=` },
      { "content-type": "text/plain" },
      { "content-type": "application/json; charset=utf-8" },
      { accept: "application/json" },
      { accept: undefined },
      { authorization: undefined },
      { authorization: "Bearer wrong-token-0123456789" },
    ];
    for (const overrides of cases) await expectSameAnswer(headersFor(taskId, overrides), body);
  });

  it("refuses bad envelopes, params and ids exactly as the SDK does", async () => {
    const taskId = await startTask("working");
    const otherServersId = new TaskIdSealer({ secret: "some-other-server-secret-0123456789abcdef" }).seal(
      { instance: "scripted", tool: "scripted_job", ref: { jobId: "1" }, createdAt: Date.now() } as never,
      "alice",
    );
    const bodies = [
      tasksGet(taskId, { meta: envelope({ "io.modelcontextprotocol/clientCapabilities": {} }) }),
      tasksGet(taskId, {
        meta: envelope({
          "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": true } },
        }),
      }),
      tasksGet(taskId, {
        meta: envelope({
          "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": [] } },
        }),
      }),
      tasksGet(taskId, {
        meta: envelope({
          "io.modelcontextprotocol/clientCapabilities": { extensions: ["io.modelcontextprotocol/tasks"] },
        }),
      }),
      tasksGet(taskId, { meta: envelope({ "io.modelcontextprotocol/clientInfo": { name: "no version" } }) }),
      tasksGet(taskId, { meta: envelope({ "io.modelcontextprotocol/clientInfo": undefined }) }),
      tasksGet(taskId, { meta: envelope({ "io.modelcontextprotocol/protocolVersion": "2025-11-25" }) }),
      tasksGet(taskId, { meta: envelope({ "io.modelcontextprotocol/protocolVersion": 20260728 }) }),
      tasksGet(taskId, { meta: envelope({ progressToken: 5 }) }),
      tasksGet(taskId, { meta: "not an object" }),
      tasksGet(taskId, { params: { taskId } }),
      tasksGet(taskId, { params: { taskId: 42, _meta: envelope() } }),
      tasksGet(taskId, { params: { _meta: envelope() } }),
      tasksGet(taskId, { params: { taskId, _meta: envelope(), extra: true } }),
      tasksGet(taskId, { id: 1.5 }),
      tasksGet(taskId, { id: null }),
      tasksGet(taskId, { id: { nested: 1 } }),
      tasksGet(taskId, { extra: { jsonrpc: "1.0" } }),
      tasksGet(taskId, { extra: { unexpected: true } }),
      tasksGet(`${taskId.slice(0, -2)}xx`),
      tasksGet(otherServersId),
      tasksGet("garbage"),
      "[" + tasksGet(taskId) + "]",
      "not json",
    ];
    for (const body of bodies) {
      const parsed = (() => {
        try {
          return JSON.parse(body) as { params?: { taskId?: unknown } };
        } catch {
          return undefined;
        }
      })();
      const nameHeader = typeof parsed?.params?.taskId === "string" ? parsed.params.taskId : taskId;
      await expectSameAnswer(headersFor(nameHeader), body);
    }
  });

  it("answers another principal's id as not found, as the SDK does", async () => {
    const taskId = await startTask("working");
    const bobTokens = BearerTokens.parse(`bob:${token}`);
    const logger = createSilentLogger();
    const bobFast = await startHttpServer({
      service,
      logger,
      name: "fast-test",
      version: "1.2.3",
      port: 0,
      tokens: bobTokens,
    });
    const bobSdk = await startHttpServer({
      service,
      logger,
      name: "fast-test",
      version: "1.2.3",
      port: 0,
      tokens: bobTokens,
      fastTasksGet: false,
    });
    try {
      const viaFast = await post(bobFast.url, headersFor(taskId), tasksGet(taskId));
      const viaSdk = await post(bobSdk.url, headersFor(taskId), tasksGet(taskId));
      expect(viaFast).toEqual(viaSdk);
      expect(viaFast.body).toContain("Task not found");
    } finally {
      await bobFast.close();
      await bobSdk.close();
    }
  });
});
