import { describe, expect, it } from "vitest";
import type { AdapterContext, JobAdapterV1, JobSnapshot } from "@jobtasks/core";
import { createSilentLogger } from "./logger.js";
import { SnapshotReader, type ReadTarget } from "./snapshot-reader.js";
import {
  cancelledSnapshot,
  completedSnapshot,
  createScriptedAdapter,
  workingSnapshot,
  type ScriptedJobRef,
} from "../../../test/support/scripted-adapter.js";

/** What an upstream event does to a job's cached snapshot, and the longer cache of jobs that have events. */

function setup(options: { eventSnapshotCacheMs?: number } = {}) {
  let now = Date.parse("2026-12-01T12:00:00Z");
  const scripted = createScriptedAdapter();
  const reader = new SnapshotReader({
    logger: createSilentLogger(),
    now: () => now,
    snapshotCacheMs: 1000,
    immediateRetries: 0,
    ...(options.eventSnapshotCacheMs !== undefined ? { eventSnapshotCacheMs: options.eventSnapshotCacheMs } : {}),
  });
  return {
    reader,
    scripted,
    advance: (milliseconds: number) => {
      now += milliseconds;
    },
    at: (offsetSeconds: number) => new Date(now + offsetSeconds * 1000).toISOString(),
  };
}

const context = (): AdapterContext => ({
  signal: new AbortController().signal,
  principal: "test",
  logger: { debug() {}, info() {}, warn() {}, error() {} },
});

async function startJob(scripted: ReturnType<typeof createScriptedAdapter>): Promise<ReadTarget> {
  const { ref } = await scripted.adapter.tools[0]!.doStart({ label: "job", startAs: "working" }, context());
  return { instance: "scripted", adapter: scripted.adapter, ref };
}

const stamped = (snapshot: JobSnapshot, updatedAt: string): JobSnapshot => ({ ...snapshot, updatedAt });

describe("SnapshotReader and upstream events", () => {
  it("serves an event's snapshot without asking the upstream", async () => {
    const { reader, scripted, at } = setup();
    const target = await startJob(scripted);
    await reader.read(target, context());
    expect(reader.applyEvent(target, { snapshot: stamped(workingSnapshot("step 3/4"), at(0)) })).toBe("replaced");
    expect((await reader.read(target, context())).message).toBe("step 3/4");
    expect(scripted.calls.getStatus).toBe(1);
  });

  it("drops the cached snapshot for an event without one, so the next read asks the upstream", async () => {
    const { reader, scripted } = setup();
    const target = await startJob(scripted);
    await reader.read(target, context());
    scripted.update(scripted.onlyJob(), completedSnapshot("green"));
    expect(reader.applyEvent(target, {})).toBe("dropped");
    expect((await reader.read(target, context())).status).toBe("completed");
    expect(scripted.calls.getStatus).toBe(2);
  });

  it("never replaces a finished job's snapshot with a running one (a queued after completed)", async () => {
    const { reader, scripted, at } = setup();
    const target = await startJob(scripted);
    reader.applyEvent(target, { snapshot: stamped(cancelledSnapshot(), at(0)) });
    expect(reader.applyEvent(target, { snapshot: stamped(workingSnapshot("queued"), at(5)) })).toBe(
      "ignored: the job had already ended",
    );
    expect(reader.applyEvent(target, {})).toBe("ignored: the job had already ended");
    expect((await reader.read(target, context())).status).toBe("cancelled");
    expect(scripted.calls.getStatus).toBe(0);
  });

  it("ignores an event's snapshot older than the one held, by the upstream's time", async () => {
    const { reader, scripted, at } = setup();
    const target = await startJob(scripted);
    await reader.read(target, context());
    reader.applyEvent(target, { snapshot: stamped(workingSnapshot("in progress"), at(0)) });
    expect(reader.applyEvent(target, { snapshot: stamped(workingSnapshot("queued"), at(-10)) })).toBe(
      "ignored: older than the status held",
    );
    expect((await reader.read(target, context())).message).toBe("in progress");
  });

  it("ignores a snapshot older than a change announced without one (out of order, read again pending)", async () => {
    const { reader, scripted, at } = setup();
    const target = await startJob(scripted);
    await reader.read(target, context());
    expect(reader.applyEvent(target, { updatedAt: at(0) })).toBe("dropped");
    expect(reader.applyEvent(target, { snapshot: stamped(workingSnapshot("queued"), at(-3)) })).toBe(
      "ignored: older than the status held",
    );
  });

  it("keeps the snapshot of a job with events for eventSnapshotCacheMs, then reads again (a lost delivery is caught)", async () => {
    const { reader, scripted, advance, at } = setup({ eventSnapshotCacheMs: 30_000 });
    const target = await startJob(scripted);
    await reader.read(target, context());
    reader.applyEvent(target, { snapshot: stamped(workingSnapshot("in progress"), at(0)) });
    // The job finishes upstream, and the delivery saying so is lost.
    scripted.update(scripted.onlyJob(), completedSnapshot("green"));
    for (let second = 0; second < 29; second += 1) {
      advance(1000);
      // Each look of a wait asks for a newer read; with events, the cache answers it all the same.
      expect((await reader.read(target, context(), { readSince: Number.MAX_SAFE_INTEGER })).status).toBe("working");
    }
    expect(scripted.calls.getStatus).toBe(1);
    advance(1000);
    expect((await reader.read(target, context())).status).toBe("completed");
    expect(scripted.calls.getStatus).toBe(2);
  });

  it("leaves a running snapshot of a job it never read alone: a late or replayed delivery has nothing to be checked against", async () => {
    const { reader, scripted, at } = setup({ eventSnapshotCacheMs: 30_000 });
    const target = await startJob(scripted);
    scripted.update(scripted.onlyJob(), completedSnapshot("green"));
    // A fresh process (a restart, a replica without Redis) is sent a stale `requested` for a finished run.
    expect(reader.applyEvent(target, { snapshot: stamped(workingSnapshot("queued"), at(-600)) })).toBe(
      "ignored: a running state of a job not read here",
    );
    expect((await reader.read(target, context())).status).toBe("completed");
  });

  it("keeps the one-second cache for a job that never had an event", async () => {
    const { reader, scripted, advance } = setup();
    const target = await startJob(scripted);
    await reader.read(target, context());
    advance(1500);
    await reader.read(target, context());
    expect(scripted.calls.getStatus).toBe(2);
  });

  it("does not keep the answer of a read that began before an event", async () => {
    const { reader, scripted } = setup();
    const target = await startJob(scripted);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const read = scripted.adapter.doGetStatus.bind(scripted.adapter);
    let reads = 0;
    const slowFirst: ReadTarget = {
      ...target,
      adapter: {
        ...scripted.adapter,
        doGetStatus: async (ref, readContext) => {
          reads += 1;
          if (reads === 1) {
            const before = await read(ref, readContext);
            await gate;
            return before;
          }
          return read(ref, readContext);
        },
      },
    };
    const early = reader.read(slowFirst, context());
    await new Promise((resolve) => setImmediate(resolve));
    scripted.update(scripted.onlyJob(), workingSnapshot("after the event"));
    reader.applyEvent(slowFirst, {});
    release();
    expect((await early).message).not.toBe("after the event");
    expect((await reader.read(slowFirst, context())).message).toBe("after the event");
  });
});

describe("SnapshotReader and an old change without a snapshot", () => {
  it("still drops the cache: reading again is never a step back", async () => {
    const { reader, scripted, at } = setup();
    const target = await startJob(scripted);
    reader.applyEvent(target, { snapshot: stamped(workingSnapshot("in progress"), at(0)) });
    expect(reader.applyEvent(target, { updatedAt: at(-60) })).toBe("dropped");
  });
});

describe("SnapshotReader and an event's snapshot for a generation no task follows", () => {
  it("keeps it nowhere: a callback's made-up generation (REST's createdAt) must not push followed jobs out of the cache", async () => {
    const scripted = createScriptedAdapter();
    // As REST's callbacks: the job is its id; a task's ref adds when the task began, which no callback knows.
    const adapter: JobAdapterV1<ScriptedJobRef & { createdAt?: number }> = {
      ...scripted.adapter,
      events: {
        async doVerifyDelivery() {
          return { verified: true };
        },
        async doReadDelivery() {
          return { event: "callback", jobs: [] };
        },
        jobIdentity: (ref) => ({ jobId: ref.jobId }),
      },
    };
    let now = Date.parse("2026-12-01T12:00:00Z");
    const reader = new SnapshotReader({
      logger: createSilentLogger(),
      now: () => now,
      immediateRetries: 0,
      maxEntries: 2,
    });
    const followed: ReadTarget[] = [];
    for (const label of ["a", "c"]) {
      const { ref } = await scripted.adapter.tools[0]!.doStart({ label, startAs: "working" }, context());
      followed.push({ instance: "rest", adapter, ref: { ...ref, createdAt: 1 } });
    }
    for (const target of followed) await reader.read(target, context());
    expect(scripted.calls.getStatus).toBe(2);
    // Callbacks about another job, each under the time it arrived, as the adapter has to name it.
    for (let index = 0; index < 2; index += 1) {
      now += 1000;
      const callback: ReadTarget = { instance: "rest", adapter, ref: { jobId: "job-b", createdAt: now } };
      reader.applyEvent(callback, { snapshot: stamped(workingSnapshot("rendering"), new Date(now).toISOString()) });
    }
    for (const target of followed) await reader.read(target, context());
    expect(scripted.calls.getStatus).toBe(2);
  });
});
