/**
 * Two ways a task could show an older state than the upstream has, after events: replicas sharing Redis
 * whose shared snapshot expired before the events window it answers for (every replica read the job again
 * once a minute), and a read right after a change announced without a snapshot, answered by an upstream
 * whose API lags its webhook (kept for the whole window, it hid the completion until the safety read).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdapterContext, JobSnapshot } from "@jobtasks/core";
import { createSilentLogger } from "../packages/server/src/logger.js";
import { SnapshotReader, type ReadTarget } from "../packages/server/src/snapshot-reader.js";
import { connectRedisSharedState } from "../packages/server/src/connect-shared-state.js";
import { completedSnapshot, createScriptedAdapter, workingSnapshot } from "./support/scripted-adapter.js";
import { redisKeys, startTestRedis, type TestRedis } from "./support/redis-server.js";

const context = (): AdapterContext => ({
  signal: new AbortController().signal,
  principal: "test",
  logger: { debug() {}, info() {}, warn() {}, error() {} },
});
const stamped = (snapshot: JobSnapshot, updatedAt: string): JobSnapshot => ({ ...snapshot, updatedAt });

async function startJob(scripted: ReturnType<typeof createScriptedAdapter>): Promise<ReadTarget> {
  const { ref } = await scripted.adapter.tools[0]!.doStart({ label: "job", startAs: "working" }, context());
  return { instance: "scripted", adapter: scripted.adapter, ref };
}

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop();
});

describe("the events window with replicas sharing Redis", () => {
  it("keeps the shared snapshot at least as long as the events window it answers for", async () => {
    const keyPrefix = `events-window-${process.pid}`;
    const state = await connectRedisSharedState({
      url: redis.url,
      keyPrefix,
      logger: createSilentLogger(),
      commandTimeoutMs: 500,
    });
    try {
      const scripted = createScriptedAdapter();
      const windowMs = 2 * 60_000;
      const reader = new SnapshotReader({
        logger: createSilentLogger(),
        snapshotCacheMs: 1000,
        eventSnapshotCacheMs: windowMs,
        immediateRetries: 0,
        sharedSnapshots: state.snapshots,
      });
      const target = await startJob(scripted);
      reader.noteDelivery("scripted");
      await reader.read(target, context());
      await new Promise((resolve) => setTimeout(resolve, 200));
      const [shared] = redisKeys(redis, `*${keyPrefix}*snapshot*`);
      // Shorter than the window, every replica would read the job again once the key expires.
      expect(shared?.ttlMs).toBeGreaterThan(windowMs);
    } finally {
      await state.close();
    }
  });
});

describe("the read after a change announced without a snapshot", () => {
  it("is not kept for the whole window when the upstream answers with a state older than the announced change", async () => {
    let now = Date.parse("2026-12-01T12:00:00Z");
    const at = (seconds: number) => new Date(now + seconds * 1000).toISOString();
    const scripted = createScriptedAdapter();
    const reader = new SnapshotReader({
      logger: createSilentLogger(),
      now: () => now,
      snapshotCacheMs: 1000,
      eventSnapshotCacheMs: 30_000,
      immediateRetries: 0,
    });
    const target = await startJob(scripted);
    await reader.read(target, context());
    // The upstream's API lags its webhook: it still answers the state before the change.
    scripted.update(scripted.onlyJob(), stamped(workingSnapshot("step 4 (stale)"), at(-5)));
    expect(reader.applyEvent(target, { updatedAt: at(10) })).toBe("dropped");
    now += 50;
    const first = await reader.read(target, context());
    expect(first.message).toBe("step 4 (stale)");
    // The API catches up a moment later: the job has finished.
    scripted.update(scripted.onlyJob(), completedSnapshot("green"));
    now += 5000;
    expect((await reader.read(target, context())).status).toBe("completed");
  });

  it("keeps such a read after eventSnapshotCacheMs from the event: an upstream whose event times are not its reads' is not read at every poll", async () => {
    let now = Date.parse("2026-12-01T12:00:00Z");
    const at = (seconds: number) => new Date(now + seconds * 1000).toISOString();
    const scripted = createScriptedAdapter();
    const reader = new SnapshotReader({
      logger: createSilentLogger(),
      now: () => now,
      snapshotCacheMs: 1000,
      eventSnapshotCacheMs: 30_000,
      immediateRetries: 0,
    });
    const target = await startJob(scripted);
    await reader.read(target, context());
    scripted.update(scripted.onlyJob(), stamped(workingSnapshot("running"), at(-5)));
    reader.applyEvent(target, { updatedAt: at(10) });
    now += 31_000;
    await reader.read(target, context());
    const reads = scripted.calls.getStatus;
    now += 5000;
    await reader.read(target, context());
    expect(scripted.calls.getStatus).toBe(reads);
  });
});
