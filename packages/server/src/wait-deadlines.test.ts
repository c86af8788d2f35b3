import { afterEach, describe, expect, it } from "vitest";
import type { CallToolResult, JobSnapshot } from "@jobtasks/core";
import { TaskIdSealer } from "./task-id.js";
import { createSilentLogger } from "./logger.js";
import { TaskService, type CallerContext, type TaskServiceOptions } from "./task-service.js";
import { startHttpServer } from "./http-server.js";
import { rawCall, rawResult } from "../../../test/support/raw-rpc.js";
import {
  approvalRequest,
  completedSnapshot,
  createScriptedAdapter,
  inputRequiredSnapshot,
  workingSnapshot,
  type ScriptedAdapter,
  type ScriptedAdapterOptions,
} from "../../../test/support/scripted-adapter.js";

/**
 * Every wait and every handle tool answers by its own deadline, whatever an upstream read is doing, and one
 * principal's waits cannot take every other caller's. The upstream here is a scripted adapter whose reads
 * can be made to hang; the deadlines are shortened so that a test takes a second or two.
 */

const slowUpstreamAnswerMs = 400;
/** Far beyond every bound under test: a call that waits for it has missed its deadline. */
const readTimeoutMs = 10_000;

function setup(options: ScriptedAdapterOptions & { service?: Partial<TaskServiceOptions> } = {}) {
  const scripted = createScriptedAdapter({ pollIntervalMs: 300, ...options });
  const service = new TaskService({
    adapters: [{ name: "scripted", adapter: scripted.adapter }],
    sealer: new TaskIdSealer({ secret: "wait-deadlines-test-secret-0123456789abcdef" }),
    logger: createSilentLogger(),
    snapshotCacheMs: 0,
    immediateRetryDelayMs: 1,
    slowUpstreamAnswerMs,
    readTimeoutMs,
    ...options.service,
  });
  return { scripted, service };
}

/** From now on every status read (and cancel) accepts the request and never answers. */
function hangUpstream(scripted: ScriptedAdapter): void {
  scripted.adapter.doGetStatus = () => new Promise<JobSnapshot>(() => undefined);
  scripted.adapter.doCancel = () => new Promise<void>(() => undefined);
}

/** From now on every status read waits until released, then answers as the job stands then. */
function holdReads(scripted: ScriptedAdapter): { release: () => void } {
  const read = scripted.adapter.doGetStatus.bind(scripted.adapter);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  scripted.adapter.doGetStatus = async (ref, context) => {
    await released;
    return read(ref, context);
  };
  return { release };
}

async function until(condition: () => boolean): Promise<void> {
  for (let tries = 0; !condition(); tries += 1) {
    if (tries > 200) throw new Error("the condition never held");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const controllers: AbortController[] = [];
afterEach(() => {
  for (const controller of controllers.splice(0)) controller.abort(new Error("test over"));
});

function caller(principal: string): CallerContext {
  const controller = new AbortController();
  controllers.push(controller);
  return { principal, signal: controller.signal };
}

type Result = CallToolResult & { structuredContent: Record<string, any> };
const call = async (service: TaskService, name: string, args: unknown, who = caller("alice")) =>
  (await service.callTool(name, args, { ...who, tasksDeclared: false })) as Result;
const text = (result: CallToolResult) =>
  result.content.map((block) => (block as { text?: string }).text ?? "").join("\n");

async function timed<T>(operation: () => Promise<T>): Promise<{ value: T; elapsedMs: number }> {
  const startedAt = performance.now();
  const value = await operation();
  return { value, elapsedMs: performance.now() - startedAt };
}

describe("waits against an upstream that accepts and never answers", () => {
  it("task_status answers by the end of waitSeconds, even with a read in flight then, with the last snapshot marked slow", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    hangUpstream(scripted);
    // Reads at 0 (hangs, answered slow at 0.4 s) and 0.6 s (joins the hung read, answered slow at 1 s).
    const { value, elapsedMs } = await timed(() => call(service, "task_status", { taskId, waitSeconds: 1 }));
    expect(elapsedMs).toBeLessThan(2_500);
    expect(value.isError).toBeFalsy();
    expect(value.structuredContent["status"]).toBe("working");
    expect(text(value)).toMatch(/started job \(the upstream is slow to answer/);
  });

  it("tasks/get answers within the slow-upstream bound with the last snapshot, saying the upstream is slow", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    hangUpstream(scripted);
    const { value, elapsedMs } = await timed(() => service.getTask(taskId, caller("alice")));
    expect(elapsedMs).toBeLessThan(2_500);
    expect(value.status).toBe("working");
    expect(value.statusMessage).toMatch(/^started job \(the upstream is slow to answer/);
  });

  it("task_status with waitSeconds 0 answers within the slow-upstream bound", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    hangUpstream(scripted);
    const { value, elapsedMs } = await timed(() => call(service, "task_status", { taskId, waitSeconds: 0 }));
    expect(elapsedMs).toBeLessThan(2_500);
    expect(value.structuredContent["status"]).toBe("working");
    expect(text(value)).toMatch(/upstream is slow to answer/);
  });

  it("task_cancel answers within the slow-upstream bound, saying the upstream is slow", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    hangUpstream(scripted);
    const { value, elapsedMs } = await timed(() => call(service, "task_cancel", { taskId }));
    expect(elapsedMs).toBeLessThan(2_500);
    expect(value.isError).toBeFalsy();
    expect(value.structuredContent).toMatchObject({ taskId, status: "working", cancelRequested: true });
    expect(text(value)).toMatch(/the upstream is slow to answer/);
  });

  it("task_answer answers within the slow-upstream bound when the read before delivering hangs; the answer is sent once, later", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    scripted.update(scripted.onlyJob(), inputRequiredSnapshot({ gate: approvalRequest() }));
    await call(service, "task_status", { taskId, waitSeconds: 0 });
    // The status reads hang until released; the answer waits for its read, then goes out.
    const reads = holdReads(scripted);
    const answer = { taskId, key: "gate", action: "accept", content: { approve: true } };
    const { value, elapsedMs } = await timed(() => call(service, "task_answer", answer));
    expect(elapsedMs).toBeLessThan(2_500);
    expect(value.isError).toBeFalsy();
    expect(value.structuredContent).toEqual({
      taskId,
      key: "gate",
      action: "accept",
      sent: false,
      delivering: true,
      upstreamSlow: true,
      status: "input_required",
      next: expect.objectContaining({ tool: "task_status", arguments: { taskId } }),
    });
    expect(text(value)).toMatch(/upstream is slow to answer.*still being delivered.*at most once/);
    // A second answer meanwhile is bounded too, and waits its turn behind the first.
    const second = await timed(() => call(service, "task_answer", answer));
    expect(second.elapsedMs).toBeLessThan(2_500);
    expect(second.value.structuredContent["delivering"]).toBe(true);
    expect(scripted.calls.respond).toBe(0);
    reads.release();
    await until(() => scripted.calls.respond > 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(scripted.onlyJob().responses).toEqual([{ gate: { action: "accept", content: { approve: true } } }]);
  });

  it("task_answer answers within the slow-upstream bound when the upstream never answers the delivery, and sends no second", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    scripted.update(scripted.onlyJob(), inputRequiredSnapshot({ gate: approvalRequest() }));
    let deliveries = 0;
    scripted.adapter.doRespond = () => {
      deliveries += 1;
      return new Promise<void>(() => undefined);
    };
    const answer = { taskId, key: "gate", action: "accept", content: { approve: true } };
    const { value, elapsedMs } = await timed(() => call(service, "task_answer", answer));
    expect(elapsedMs).toBeLessThan(2_500);
    expect(value.structuredContent).toMatchObject({ sent: false, delivering: true, upstreamSlow: true });
    const again = await timed(() => call(service, "task_answer", answer));
    expect(again.elapsedMs).toBeLessThan(2_500);
    expect(deliveries).toBe(1);
  });

  it("a job tool that answers at once gives its handle within the slow-upstream bound when the first read hangs", async () => {
    const { service, scripted } = setup();
    hangUpstream(scripted);
    const { value, elapsedMs } = await timed(() => call(service, "scripted_job", {}));
    expect(elapsedMs).toBeLessThan(2_500);
    // No snapshot of this job yet in this process: working, never an error.
    expect(value.isError).toBeFalsy();
    expect(value.structuredContent["status"]).toBe("working");
    expect(typeof value.structuredContent["taskId"]).toBe("string");
    expect(text(value)).toMatch(/upstream is slow to answer/);
  });
});

describe("the quick-finish wait", () => {
  it("reads the job on its deadline, not the snapshot the previous read cached (simulated clock)", async () => {
    // Reads at 0, 1.25 and 2.5 s say working; the job ends at 2.6 s; the 3 s deadline read must see it,
    // though the 1 s cache still holds the 2.5 s answer then.
    const clock = { now: Date.UTC(2026, 11, 1, 9, 0) };
    const startedAt = clock.now;
    const scripted = createScriptedAdapter({ pollIntervalMs: 1_250, synchronousWaitMs: 3_000 });
    const service = new TaskService({
      adapters: [{ name: "scripted", adapter: scripted.adapter }],
      sealer: new TaskIdSealer({ secret: "wait-deadlines-test-secret-0123456789abcdef" }),
      logger: createSilentLogger(),
      snapshotCacheMs: 1_000,
      now: () => clock.now,
      sleep: async (milliseconds) => {
        clock.now += milliseconds;
        if (clock.now - startedAt >= 2_600) scripted.update(scripted.onlyJob(), completedSnapshot("quick"));
      },
    });
    const result = await call(service, "scripted_job", {});
    expect(result).toEqual({ content: [{ type: "text", text: "quick" }], structuredContent: { text: "quick" } });
  });
});

describe("wait slots shared fairly between principals", () => {
  it("one principal holding its share of the waits leaves the others theirs; its own further waits answer busy", async () => {
    const { service } = setup({ service: { maxWaitingCalls: 8 } });
    const aliceJob = (await call(service, "scripted_job", {})).structuredContent.taskId;
    const bobJob = (await call(service, "scripted_job", {}, caller("bob"))).structuredContent.taskId;
    // Alice holds eight long waits, as many as the whole server allows.
    for (let index = 0; index < 8; index += 1)
      void call(service, "task_status", { taskId: aliceJob, waitSeconds: 30 }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const bob = await timed(() => call(service, "task_status", { taskId: bobJob, waitSeconds: 1 }, caller("bob")));
    expect(text(bob.value)).not.toMatch(/busy/);
    // It waited: its last look starts a slow-upstream bound (0.4 s here) before its end, at 0.6 s.
    expect(bob.elapsedMs).toBeGreaterThanOrEqual(550);
    // A quarter of the eight slots is each principal's share, and past hers alice may not take the last
    // quarter: she holds six, and her next wait is told the server is busy.
    expect(text(await call(service, "task_status", { taskId: aliceJob, waitSeconds: 5 }))).toMatch(
      /The server is busy/,
    );
  });

  it("another principal's quick job is answered with its result, not a bare handle, while one principal holds its share", async () => {
    const { service, scripted } = setup({ synchronousWaitMs: 3_000, service: { maxWaitingCalls: 8 } });
    const aliceJob = (await call(service, "scripted_job", {})).structuredContent.taskId;
    for (let index = 0; index < 8; index += 1)
      void call(service, "task_status", { taskId: aliceJob, waitSeconds: 30 }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const pending = call(service, "scripted_job", { label: "bob's" }, caller("bob"));
    setTimeout(() => scripted.update(scripted.lastJob(), completedSnapshot("bob's result")), 500);
    expect(text(await pending)).toBe("bob's result");
  });

  it("a lone principal may hold the slots past its share except the last quarter, kept for others", async () => {
    const { service } = setup({ service: { maxWaitingCalls: 8 } });
    const taskId = (await call(service, "scripted_job", {})).structuredContent.taskId;
    for (let index = 0; index < 5; index += 1)
      void call(service, "task_status", { taskId, waitSeconds: 30 }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The sixth is held (two slots stay free), the seventh would leave fewer: busy.
    void call(service, "task_status", { taskId, waitSeconds: 30 }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(text(await call(service, "task_status", { taskId, waitSeconds: 5 }))).toMatch(/The server is busy/);
  });

  it("a maxWaitingCallsPerPrincipal of its own replaces the quarter", async () => {
    const { service } = setup({ service: { maxWaitingCalls: 2, maxWaitingCallsPerPrincipal: 1 } });
    const taskId = (await call(service, "scripted_job", {})).structuredContent.taskId;
    void call(service, "task_status", { taskId, waitSeconds: 30 }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(text(await call(service, "task_status", { taskId, waitSeconds: 5 }))).toMatch(/The server is busy/);
  });
});

describe("stopping the server", () => {
  it("answers every open wait at once with the task as last seen, and later waits without waiting", async () => {
    const { service, scripted } = setup();
    const taskId = (await call(service, "scripted_job", {})).structuredContent.taskId;
    scripted.update(scripted.onlyJob(), workingSnapshot("step 3/5: deploy"));
    const open = timed(() => call(service, "task_status", { taskId, waitSeconds: 30 }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stopped = timed(() => service.stopWaiting());
    const answered = await open;
    expect(answered.elapsedMs).toBeLessThan(2_500);
    expect(answered.value.structuredContent["status"]).toBe("working");
    expect(text(answered.value)).toMatch(/step 3\/5: deploy/);
    expect((await stopped).elapsedMs).toBeLessThan(2_500);
    const later = await timed(() => call(service, "task_status", { taskId, waitSeconds: 30 }));
    expect(later.elapsedMs).toBeLessThan(2_500);
    expect(text(later.value)).not.toMatch(/busy/);
  });
});

describe("stopping the server while an answer is being delivered", () => {
  it("returns within its bound when a delivery never settles (the user's form answer, a hung doRespond)", async () => {
    const { service, scripted } = setup({ service: { formsFromTaskStatus: true } });
    const { taskId } = (await call(service, "scripted_job", { startAs: "input_required" })).structuredContent;
    scripted.adapter.doRespond = async () => {
      scripted.calls.respond += 1;
      return new Promise<never>(() => undefined);
    };
    const who = caller("alice");
    void service
      .callTool(
        "task_status",
        { taskId, waitSeconds: 30 },
        { ...who, tasksDeclared: false, askUser: async () => ({ action: "accept", content: { approve: true } }) },
      )
      .catch(() => undefined);
    await until(() => scripted.calls.respond === 1);
    const tooLate = new Promise<"still waiting">((resolve) => setTimeout(() => resolve("still waiting"), 2_000));
    const stopped = await timed(() => Promise.race([service.stopWaiting(300).then(() => "stopped"), tooLate]));
    expect(stopped.value).toBe("stopped");
    expect(stopped.elapsedMs).toBeGreaterThanOrEqual(250);
    expect(stopped.elapsedMs).toBeLessThan(1_000);
  });
});

describe("closing the HTTP server while an answer is being delivered", () => {
  it("finishes within its grace period although a task_answer is held by a delivery the upstream never answers", async () => {
    // A slow-upstream bound far beyond the grace: the task_answer call itself stays open all along.
    const { service, scripted } = setup({ service: { slowUpstreamAnswerMs: 20_000 } });
    const http = await startHttpServer({
      service,
      logger: createSilentLogger(),
      name: "closing",
      version: "1.0.0",
      port: 0,
      closeGraceMs: 300,
    });
    try {
      const handle = await rawResult(
        http.url,
        "tools/call",
        { name: "scripted_job", arguments: { startAs: "input_required" } },
        { tasks: false },
      );
      const taskId = (handle["structuredContent"] as { taskId: string }).taskId;
      scripted.adapter.doRespond = async () => {
        scripted.calls.respond += 1;
        return new Promise<never>(() => undefined);
      };
      const answering = rawCall(
        http.url,
        "tools/call",
        {
          name: "task_answer",
          arguments: { taskId, key: "job-1-approval-1", action: "accept", content: { approve: true } },
        },
        { tasks: false },
      ).catch(() => undefined);
      await until(() => scripted.calls.respond === 1);
      const tooLate = new Promise<"still closing">((resolve) => setTimeout(() => resolve("still closing"), 3_000));
      const closed = await timed(() => Promise.race([http.close().then(() => "closed"), tooLate]));
      expect(closed.value).toBe("closed");
      expect(closed.elapsedMs).toBeLessThan(1_500);
      await answering;
    } finally {
      await Promise.race([http.close(), new Promise((resolve) => setTimeout(resolve, 100))]);
    }
  });
});

describe("task_status delivering the user's form answer", () => {
  it("answers by the end of waitSeconds when the upstream never answers the delivery; the answer is not sent twice", async () => {
    const { service, scripted } = setup({ service: { formsFromTaskStatus: true } });
    const { taskId } = (await call(service, "scripted_job", { startAs: "input_required" })).structuredContent;
    scripted.adapter.doRespond = async () => {
      scripted.calls.respond += 1;
      return new Promise<never>(() => undefined);
    };
    const askUser = async () => ({ action: "accept" as const, content: { approve: true } });
    const tooLate = new Promise<"still waiting">((resolve) => setTimeout(() => resolve("still waiting"), 3_000));
    const answered = await timed(() =>
      Promise.race([
        service.callTool(
          "task_status",
          { taskId, waitSeconds: 1 },
          { ...caller("alice"), tasksDeclared: false, askUser },
        ),
        tooLate,
      ]),
    );
    expect(answered.value).not.toBe("still waiting");
    expect(answered.elapsedMs).toBeLessThan(1_600);
    expect(scripted.calls.respond).toBe(1);
    // A model answering the question meanwhile queues behind the delivery: nothing is sent a second time.
    const second = await call(service, "task_answer", {
      taskId,
      key: "job-1-approval-1",
      action: "accept",
      content: { approve: true },
    });
    expect(second.structuredContent).toMatchObject({ sent: false, delivering: true });
    expect(scripted.calls.respond).toBe(1);
  });
});
