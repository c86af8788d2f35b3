import { describe, expect, it } from "vitest";
import type { AdapterContext, JobAdapterV1, JobEventsV1 } from "@jobtasks/core";
import { SnapshotReader, type ReadTarget } from "./snapshot-reader.js";
import { capturingLogger } from "./test-support/capturing-logger.js";
import {
  completedSnapshot,
  createScriptedAdapter,
  workingSnapshot,
  type ScriptedJobRef,
} from "../../../test/support/scripted-adapter.js";

/**
 * Which jobs the events window covers: every job of an instance whose deliveries arrive, from its first
 * read; none of an instance whose deliveries do not (a misconfigured webhook), which is polled as without
 * events; and how an adapter's request budget stretches the safety read.
 */

const instance = "scripted";

function setup(options: { safetyReadIntervalMs?: (followedJobs: number) => number } = {}) {
  let now = Date.parse("2026-12-01T12:00:00Z");
  const scripted = createScriptedAdapter();
  const events: JobEventsV1<ScriptedJobRef> = {
    async doVerifyDelivery() {
      return { verified: true };
    },
    async doReadDelivery() {
      return { event: "job", jobs: [] };
    },
    ...(options.safetyReadIntervalMs ? { safetyReadIntervalMs: options.safetyReadIntervalMs } : {}),
  };
  const adapter: JobAdapterV1<ScriptedJobRef> = { ...scripted.adapter, events };
  const { logger, entries } = capturingLogger();
  const reader = new SnapshotReader({
    logger,
    now: () => now,
    snapshotCacheMs: 1000,
    eventSnapshotCacheMs: 30_000,
    eventsLiveForMs: 10 * 60_000,
    immediateRetries: 0,
  });
  const start = async (label = "job"): Promise<ReadTarget> => {
    const { ref } = await adapter.tools[0]!.doStart({ label, startAs: "working" }, context());
    return { instance, adapter, ref };
  };
  /** One poll a second for `seconds`; returns the upstream reads they cost. */
  const pollEverySecond = async (target: ReadTarget, seconds: number) => {
    const before = scripted.calls.getStatus;
    for (let second = 0; second < seconds; second += 1) {
      now += 1000;
      await reader.read(target, context());
    }
    return scripted.calls.getStatus - before;
  };
  return {
    reader,
    scripted,
    start,
    pollEverySecond,
    advance: (milliseconds: number) => {
      now += milliseconds;
    },
    warnings: () => entries.filter((entry) => entry.level === 40).map((entry) => entry.msg),
    infos: () => entries.filter((entry) => entry.level === 30).map((entry) => entry.msg),
  };
}

const context = (): AdapterContext => ({
  signal: new AbortController().signal,
  principal: "test",
  logger: { debug() {}, info() {}, warn() {}, error() {} },
});

describe("the events window, for an instance whose deliveries arrive", () => {
  it("covers a job followed before its own first event: one read per 30 s, not one per poll", async () => {
    const { reader, start, pollEverySecond, infos } = setup();
    // A delivery about something else (a ping, another run) shows that this instance's webhook works.
    reader.noteDelivery(instance);
    const target = await start();
    await reader.read(target, context());
    expect(await pollEverySecond(target, 29)).toBe(0);
    expect(await pollEverySecond(target, 1)).toBe(1);
    expect(await pollEverySecond(target, 60)).toBe(2);
    expect(infos().filter((message) => message.startsWith("upstream events arriving"))).toHaveLength(1);
  });

  it("catches a lost delivery at the read after the window", async () => {
    const { reader, scripted, start, pollEverySecond } = setup();
    reader.noteDelivery(instance);
    const target = await start();
    expect((await reader.read(target, context())).status).toBe("working");
    // The job finishes upstream, and the delivery saying so never arrives.
    scripted.update(scripted.onlyJob(), completedSnapshot("green"));
    await pollEverySecond(target, 29);
    expect((await reader.read(target, context())).status).toBe("working");
    await pollEverySecond(target, 1);
    expect((await reader.read(target, context())).status).toBe("completed");
  });
});

describe("the safety read while deliveries keep coming", () => {
  it("still comes a window after the last upstream read: events' snapshots do not make it younger", async () => {
    const { reader, scripted, start, advance } = setup();
    const target = await start();
    await reader.read(target, context());
    // Something the deliveries never tell changes upstream (its own delivery was lost).
    scripted.update(scripted.onlyJob(), completedSnapshot("green"));
    for (let second = 5; second <= 25; second += 5) {
      advance(5000);
      const updatedAt = new Date(Date.parse("2026-12-01T12:00:00Z") + second * 1000).toISOString();
      reader.applyEvent(target, { snapshot: { ...workingSnapshot(`step ${second}`), updatedAt } });
      expect((await reader.read(target, context())).message).toBe(`step ${second}`);
    }
    expect(scripted.calls.getStatus).toBe(1);
    advance(5000);
    expect((await reader.read(target, context())).status).toBe("completed");
    expect(scripted.calls.getStatus).toBe(2);
  });
});

describe("an instance with events configured whose deliveries do not arrive", () => {
  it("is polled as without events, and a warning says so once its quiet has lasted eventsLiveForMs", async () => {
    const { reader, start, pollEverySecond, warnings } = setup();
    const target = await start();
    await reader.read(target, context());
    // The one-second cache: a poll every second is a read each.
    expect(await pollEverySecond(target, 60)).toBe(60);
    expect(warnings()).toEqual([]);
    // Counted from the first look at the instance's events, a second after the first read.
    await pollEverySecond(target, 9 * 60 + 1);
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatch(/^upstream events are configured, but no verified delivery has arrived/);
    await pollEverySecond(target, 60);
    expect(warnings()).toHaveLength(1);
  });

  it("goes back to polling when deliveries stop, says so, and to the window at the next delivery", async () => {
    const { reader, start, pollEverySecond, advance, warnings, infos } = setup();
    reader.noteDelivery(instance);
    const target = await start();
    await reader.read(target, context());
    expect(await pollEverySecond(target, 60)).toBe(2);
    // Nothing arrives for more than eventsLiveForMs: the webhook broke.
    advance(10 * 60_000);
    expect(await pollEverySecond(target, 10)).toBe(10);
    expect(warnings()).toEqual([
      expect.stringMatching(/^upstream events stopped arriving: this instance's jobs are polled as without events/),
    ]);
    reader.noteDelivery(instance);
    expect(await pollEverySecond(target, 29)).toBe(0);
    expect(infos().filter((message) => message.startsWith("upstream events arriving"))).toHaveLength(2);
  });

  it("never has the window for an adapter without events", async () => {
    const { reader, scripted, pollEverySecond } = setup();
    const { ref } = await scripted.adapter.tools[0]!.doStart({ label: "plain", startAs: "working" }, context());
    // Deliveries to another instance say nothing of this one.
    reader.noteDelivery("another-instance");
    expect(await pollEverySecond({ instance, adapter: scripted.adapter, ref }, 10)).toBe(10);
  });
});

describe("the safety read within the adapter's request budget", () => {
  it("waits as long as the adapter asks for the jobs followed, each job at its own moment", async () => {
    // The adapter can spare one safety read per job per minute per 10 jobs followed.
    const { reader, scripted, start, advance } = setup({ safetyReadIntervalMs: (followed) => followed * 6000 });
    reader.noteDelivery(instance);
    const targets = await Promise.all(Array.from({ length: 20 }, (_, index) => start(`job ${index}`)));
    await Promise.all(targets.map((target) => reader.read(target, context())));
    const readAt = new Map<number, number[]>();
    const reads = () => scripted.calls.getStatus;
    for (let second = 1; second <= 360; second += 1) {
      advance(1000);
      // Deliveries keep arriving (about other jobs), so the instance stays live.
      if (second % 60 === 0) reader.noteDelivery(instance);
      for (const [index, target] of targets.entries()) {
        const before = reads();
        await reader.read(target, context());
        if (reads() > before) readAt.set(index, [...(readAt.get(index) ?? []), second]);
      }
    }
    // 20 jobs followed: the adapter asks for 120 s; each job's own window is 120–180 s.
    const firstReads = targets.map((_, index) => readAt.get(index)?.[0]);
    for (const first of firstReads) {
      expect(first).toBeGreaterThanOrEqual(120);
      expect(first).toBeLessThanOrEqual(181);
    }
    // Spread: the jobs read at the same moment at first are read again at many moments.
    expect(new Set(firstReads).size).toBeGreaterThan(10);
    const all = [...readAt.values()].flat().length;
    expect(all).toBeGreaterThanOrEqual(40);
    expect(all).toBeLessThanOrEqual(60);
  });

  it("never waits less than eventSnapshotCacheMs, whatever the adapter says", async () => {
    const { reader, start, pollEverySecond } = setup({ safetyReadIntervalMs: () => 5 });
    reader.noteDelivery(instance);
    const target = await start();
    await reader.read(target, context());
    expect(await pollEverySecond(target, 29)).toBe(0);
    expect(await pollEverySecond(target, 1)).toBe(1);
  });
});
