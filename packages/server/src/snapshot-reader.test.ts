import { describe, expect, it } from "vitest";
import { JobNotFoundError, UpstreamError, type AdapterContext, type JobSnapshot } from "@jobtasks/core";
import { createSilentLogger } from "./logger.js";
import { SnapshotReader, type ReadTarget } from "./snapshot-reader.js";
import {
  completedSnapshot,
  createScriptedAdapter,
  workingSnapshot,
  type ScriptedAdapter,
} from "../../../test/support/scripted-adapter.js";

function setup(
  options: {
    budgetMs?: number;
    cacheMs?: number;
    maxTerminalCacheCharacters?: number;
    readTimeoutMs?: number;
    slowUpstreamAnswerMs?: number;
  } = {},
) {
  let now = 1_000_000;
  const scripted: ScriptedAdapter = createScriptedAdapter();
  const reader = new SnapshotReader({
    logger: createSilentLogger(),
    now: () => now,
    snapshotCacheMs: options.cacheMs ?? 1000,
    upstreamRetryBudgetMs: options.budgetMs ?? 60_000,
    immediateRetries: 2,
    immediateRetryDelayMs: 1,
    ...(options.maxTerminalCacheCharacters !== undefined
      ? { maxTerminalCacheCharacters: options.maxTerminalCacheCharacters }
      : {}),
    ...(options.readTimeoutMs !== undefined ? { readTimeoutMs: options.readTimeoutMs } : {}),
    ...(options.slowUpstreamAnswerMs !== undefined ? { slowUpstreamAnswerMs: options.slowUpstreamAnswerMs } : {}),
  });
  return {
    reader,
    scripted,
    advance: (milliseconds: number) => {
      now += milliseconds;
    },
  };
}

const context = (): AdapterContext => ({
  signal: new AbortController().signal,
  principal: "test",
  logger: { debug() {}, info() {}, warn() {}, error() {} },
});

async function startJob(scripted: ScriptedAdapter): Promise<ReadTarget> {
  const { ref } = await scripted.adapter.tools[0]!.doStart({ label: "job", startAs: "working" }, context());
  return { instance: "scripted", adapter: scripted.adapter, ref };
}

describe("SnapshotReader", () => {
  it("answers many concurrent polls of one job with one upstream read", async () => {
    const { reader, scripted } = setup();
    const target = await startJob(scripted);
    const snapshots = await Promise.all(Array.from({ length: 25 }, () => reader.read(target, context())));
    expect(new Set(snapshots.map((snapshot) => snapshot.message))).toEqual(new Set(["started job"]));
    expect(scripted.calls.getStatus).toBe(1);
  });

  it("keeps serving the other callers of a shared read when the first caller goes away", async () => {
    const { reader, scripted } = setup();
    const target = await startJob(scripted);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const original = scripted.adapter.doGetStatus.bind(scripted.adapter);
    scripted.adapter.doGetStatus = async (ref, ctx): Promise<JobSnapshot> => {
      await gate;
      if (ctx.signal.aborted) throw ctx.signal.reason;
      return original(ref, ctx);
    };
    const first = new AbortController();
    const firstRead = reader.read(target, { ...context(), signal: first.signal });
    const secondRead = reader.read(target, context());
    first.abort(new Error("client went away"));
    release();
    await expect(firstRead).rejects.toThrow("client went away");
    expect((await secondRead).message).toBe("started job");
  });

  it("gives a read that hangs a deadline, and reports it as an outage", async () => {
    const { reader, scripted } = setup({ readTimeoutMs: 50 });
    const target = await startJob(scripted);
    scripted.adapter.doGetStatus = (_ref, ctx) =>
      new Promise<JobSnapshot>((_resolve, reject) =>
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true }),
      );
    const snapshot = await reader.read(target, context());
    expect(snapshot.status).toBe("working");
    expect(snapshot.message).toMatch(/did not answer within 50 ms/);
  });

  it("bounds a read whose adapter ignores the abort signal, so later polls are not held by it", async () => {
    const { reader, scripted } = setup({ readTimeoutMs: 50 });
    const target = await startJob(scripted);
    scripted.adapter.doGetStatus = () => new Promise<JobSnapshot>(() => undefined);
    const first = await reader.read(target, context());
    expect(first.message).toMatch(/did not answer within 50 ms/);
    const second = await reader.read(target, context());
    expect(second.message).toMatch(/did not answer within 50 ms/);
  });

  it("answers a hung upstream within the slow bound, working and saying so, while the one shared read goes on", async () => {
    const { reader, scripted } = setup({ readTimeoutMs: 60_000, slowUpstreamAnswerMs: 50 });
    const target = await startJob(scripted);
    let answer!: (snapshot: JobSnapshot) => void;
    scripted.adapter.doGetStatus = () => {
      scripted.calls.getStatus += 1;
      return new Promise<JobSnapshot>((resolve) => (answer = resolve));
    };
    const startedAt = performance.now();
    const [first, second] = await Promise.all([reader.read(target, context()), reader.read(target, context())]);
    expect(performance.now() - startedAt).toBeLessThan(2_000);
    // No snapshot yet in this process: working, never an error, and not remembered as the job's state.
    for (const snapshot of [first, second]) {
      expect(snapshot.status).toBe("working");
      expect(snapshot.message).toMatch(/upstream is slow to answer/);
    }
    expect(scripted.calls.getStatus).toBe(1);
    // The read was not abandoned: when the upstream answers, the next poll gets that answer without a new call.
    answer(completedSnapshot("finally"));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await reader.read(target, context())).status).toBe("completed");
    expect(scripted.calls.getStatus).toBe(1);
  });

  it("answers a hung upstream with the last snapshot read, marked slow", async () => {
    const { reader, scripted, advance } = setup({ readTimeoutMs: 60_000, slowUpstreamAnswerMs: 50 });
    const target = await startJob(scripted);
    reader.remember(target, workingSnapshot("step 2/5: test"));
    advance(5_000);
    scripted.adapter.doGetStatus = () => new Promise<JobSnapshot>(() => undefined);
    const snapshot = await reader.read(target, context());
    expect(snapshot.status).toBe("working");
    expect(snapshot.message).toMatch(/^step 2\/5: test \(the upstream is slow to answer/);
  });

  it("counts a cached snapshot only when it was read after the caller's last look", async () => {
    const { reader, scripted, advance } = setup({ cacheMs: 1000 });
    const target = await startJob(scripted);
    await reader.read(target, context());
    const lastLook = 1_000_000;
    advance(500);
    await reader.read(target, context(), { readSince: lastLook });
    expect(scripted.calls.getStatus).toBe(2);
  });

  it("gives a finished task without an upstream time one lastUpdatedAt that does not move", async () => {
    const { reader, scripted, advance } = setup({ cacheMs: 0 });
    const target = await startJob(scripted);
    scripted.update(scripted.onlyJob(), completedSnapshot("done"));
    const first = await reader.read(target, context());
    advance(60_000);
    const second = await reader.read(target, context());
    expect(first.updatedAt).toBe(new Date(1_000_000).toISOString());
    expect(second.updatedAt).toBe(first.updatedAt);
  });

  it("reuses a read within the cache window and reads again after it", async () => {
    const { reader, scripted, advance } = setup({ cacheMs: 1000 });
    const target = await startJob(scripted);
    await reader.read(target, context());
    scripted.update(scripted.onlyJob(), workingSnapshot("step 2"));
    advance(999);
    expect((await reader.read(target, context())).message).toBe("started job");
    advance(2);
    expect((await reader.read(target, context())).message).toBe("step 2");
    expect(scripted.calls.getStatus).toBe(2);
  });

  it("reads fresh when asked to, whatever the cache holds", async () => {
    const { reader, scripted } = setup({ cacheMs: 60_000 });
    const target = await startJob(scripted);
    await reader.read(target, context());
    scripted.update(scripted.onlyJob(), workingSnapshot("moved"));
    expect((await reader.read(target, context(), { fresh: true })).message).toBe("moved");
  });

  it("keeps a terminal answer for good: later upstream changes are not seen and cost no call", async () => {
    const { reader, scripted, advance } = setup({ cacheMs: 0 });
    const target = await startJob(scripted);
    scripted.update(scripted.onlyJob(), completedSnapshot("first result"));
    const first = await reader.read(target, context());
    scripted.update(scripted.onlyJob(), workingSnapshot("re-run"));
    advance(10_000);
    const second = await reader.read(target, context(), { fresh: true });
    expect(second).toEqual(first);
    expect(second.status).toBe("completed");
    expect(scripted.calls.getStatus).toBe(1);
  });

  it("bounds the finished-job cache by size: a result over the budget is read again instead of kept", async () => {
    const { reader, scripted } = setup({ cacheMs: 0, maxTerminalCacheCharacters: 1_000 });
    const small = await startJob(scripted);
    const large = await startJob(scripted);
    scripted.update(scripted.jobs.get("job-1")!, completedSnapshot("short"));
    scripted.update(scripted.jobs.get("job-2")!, completedSnapshot("x".repeat(5_000)));
    for (let round = 0; round < 3; round++) {
      await reader.read(small, context());
      await reader.read(large, context());
    }
    // The small result was read once and kept; the large one was read every time.
    expect(scripted.calls.getStatus).toBe(1 + 3);
  });

  it("retries a retryable failure quickly before reporting anything", async () => {
    const { reader, scripted } = setup({ cacheMs: 0 });
    const target = await startJob(scripted);
    let failures = 2;
    const original = scripted.adapter.doGetStatus.bind(scripted.adapter);
    scripted.adapter.doGetStatus = async (ref, ctx): Promise<JobSnapshot> => {
      if (failures-- > 0) throw new UpstreamError("HTTP 503 from upstream", { httpStatus: 503 });
      return original(ref, ctx);
    };
    expect((await reader.read(target, context())).message).toBe("started job");
  });

  it("keeps a task working through an outage, saying so, then fails it after the retry budget", async () => {
    const { reader, scripted, advance } = setup({ cacheMs: 0, budgetMs: 60_000 });
    const target = await startJob(scripted);
    // A 503 with Retry-After is an outage all the same: the hint only paces the polls.
    scripted.failReads(
      scripted.onlyJob(),
      new UpstreamError("upstream answered HTTP 503", { httpStatus: 503, retryAfterMs: 30_000 }),
    );
    const during = await reader.read(target, context());
    expect(during.status).toBe("working");
    expect(during.message).toMatch(
      /Upstream unavailable since .*upstream answered HTTP 503.*still retrying, will give up after 1 min/,
    );
    expect(during.pollIntervalMs).toBe(30_000);
    advance(59_000);
    expect((await reader.read(target, context())).status).toBe("working");
    // That read's Retry-After (30 s) holds the next upstream read back: the budget is checked when it is made.
    advance(30_000);
    const after = await reader.read(target, context());
    expect(after.status).toBe("failed");
    expect(after.error?.code).toBe(-32603);
    expect(after.message).toMatch(/unavailable for more than 1 min/);
    // Once failed, a recovered upstream does not bring the task back.
    scripted.failReads(scripted.onlyJob(), undefined);
    expect((await reader.read(target, context(), { fresh: true })).status).toBe("failed");
  });

  it("does not count a rate limit with a reset time as an outage, however long it lasts", async () => {
    const { reader, scripted, advance } = setup({ cacheMs: 0, budgetMs: 60_000 });
    const target = await startJob(scripted);
    scripted.failReads(
      scripted.onlyJob(),
      new UpstreamError("API rate limit exceeded (HTTP 403)", {
        httpStatus: 403,
        isRetryable: true,
        retryAfterMs: 3_600_000,
      }),
    );
    for (let minute = 0; minute < 90; minute += 15) {
      const snapshot = await reader.read(target, context());
      // Polls within the hour are answered from memory, with the wait that is left.
      expect(snapshot).toMatchObject({
        status: "working",
        rawStatus: "upstream_throttled",
        pollIntervalMs: 3_600_000 - (minute % 60) * 60_000,
      });
      expect(snapshot.message).toMatch(/asked to wait until .*API rate limit exceeded/);
      advance(15 * 60_000);
    }
    scripted.failReads(scripted.onlyJob(), undefined);
    expect((await reader.read(target, context())).status).toBe("working");
  });

  it("starts the outage clock again after a successful read", async () => {
    const { reader, scripted, advance } = setup({ cacheMs: 0, budgetMs: 10_000 });
    const target = await startJob(scripted);
    const job = scripted.onlyJob();
    scripted.failReads(job, new UpstreamError("timeout"));
    await reader.read(target, context());
    advance(9_000);
    scripted.failReads(job, undefined);
    expect((await reader.read(target, context())).status).toBe("working");
    scripted.failReads(job, new UpstreamError("timeout"));
    advance(9_000);
    expect((await reader.read(target, context())).status).toBe("working");
  });

  // Once a failed snapshot; but the job may have completed before the upstream forgot it, and nothing
  // stored can tell. "Task has expired" contradicts no earlier answer, on any replica.
  it("answers Task has expired when the upstream no longer knows the job, and remembers nothing", async () => {
    const { reader, scripted } = setup({ cacheMs: 0 });
    const target = await startJob(scripted);
    scripted.failReads(scripted.onlyJob(), new JobNotFoundError("run 42 was deleted"));
    await expect(reader.read(target, context())).rejects.toMatchObject({
      code: -32602,
      message: "Failed to retrieve task: Task has expired",
    });
    scripted.failReads(scripted.onlyJob(), undefined);
    expect((await reader.read(target, context())).status).toBe("working");
  });

  it("ends a task failed at once on a non-retryable upstream refusal (access lost)", async () => {
    const { reader, scripted } = setup();
    const target = await startJob(scripted);
    scripted.failReads(
      scripted.onlyJob(),
      new UpstreamError("HTTP 403: resource not accessible by token", { httpStatus: 403 }),
    );
    const snapshot = await reader.read(target, context());
    expect(snapshot.status).toBe("failed");
    expect(snapshot.message).toContain("403");
    expect(scripted.calls.getStatus).toBe(1);
  });

  it("treats an adapter bug like an outage and does not leak its details", async () => {
    const { reader, scripted } = setup({ cacheMs: 0 });
    const target = await startJob(scripted);
    scripted.failReads(
      scripted.onlyJob(),
      new TypeError("Cannot read properties of undefined (reading 'secretField')"),
    );
    const snapshot = await reader.read(target, context());
    expect(snapshot.status).toBe("working");
    expect(snapshot.message).not.toContain("secretField");
  });
});
