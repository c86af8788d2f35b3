import { describe, expect, it } from "vitest";
import { UpstreamError, type AdapterContext, type JobSnapshot } from "@jobtasks/core";
import { createSilentLogger } from "./logger.js";
import { SnapshotReader, type ReadTarget } from "./snapshot-reader.js";
import { createScriptedAdapter, workingSnapshot } from "../../../test/support/scripted-adapter.js";

/**
 * An upstream that asked to wait (Retry-After) is not asked again before the wait is over, however early
 * clients poll: the reader answers what it knows, the same "asked to wait" snapshot.
 */

function setup() {
  let now = 2_000_000;
  const scripted = createScriptedAdapter();
  const reader = new SnapshotReader({
    logger: createSilentLogger(),
    now: () => now,
    snapshotCacheMs: 0,
    upstreamRetryBudgetMs: 600_000,
    immediateRetries: 2,
    immediateRetryDelayMs: 1,
  });
  // Every upstream read, stamped with the reader's clock.
  const readsAt: number[] = [];
  const original = scripted.adapter.doGetStatus.bind(scripted.adapter);
  scripted.adapter.doGetStatus = (ref, context): Promise<JobSnapshot> => {
    readsAt.push(now);
    return original(ref, context);
  };
  return { reader, scripted, readsAt, advance: (milliseconds: number) => void (now += milliseconds), now: () => now };
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

describe("SnapshotReader and Retry-After", () => {
  it("does not read the upstream again before a 429's Retry-After has elapsed, even when clients poll earlier", async () => {
    const { reader, scripted, readsAt, advance, now } = setup();
    const target = await startJob(scripted);
    scripted.failReads(
      scripted.onlyJob(),
      new UpstreamError("The status request answered HTTP 429", { httpStatus: 429, retryAfterMs: 30_000 }),
    );
    const askedAt = now();
    const first = await reader.read(target, context());
    expect(first).toMatchObject({ status: "working", rawStatus: "upstream_throttled" });
    expect(readsAt).toEqual([askedAt]);

    advance(1_000);
    const early = await reader.read(target, context());
    expect(early.message).toBe(first.message);
    expect(early.status).toBe("working");
    // What is left of the wait, so a client that follows it comes back when the upstream may be asked.
    expect(early.pollIntervalMs).toBe(29_000);
    advance(20_000);
    await reader.read(target, context(), { fresh: true });
    expect(readsAt).toEqual([askedAt]);

    scripted.failReads(scripted.onlyJob(), undefined);
    advance(9_000);
    await expect(reader.read(target, context())).resolves.toMatchObject({ status: "working", message: "started job" });
    expect(readsAt).toEqual([askedAt, askedAt + 30_000]);
  });

  it("holds off after a 503 with Retry-After too, and not at all after one without", async () => {
    const { reader, scripted, readsAt, advance } = setup();
    const target = await startJob(scripted);
    scripted.failReads(scripted.onlyJob(), new UpstreamError("HTTP 503", { httpStatus: 503, retryAfterMs: 10_000 }));
    const first = await reader.read(target, context());
    expect(first.rawStatus).toBe("upstream_unavailable");
    advance(5_000);
    expect((await reader.read(target, context())).message).toBe(first.message);
    expect(readsAt).toHaveLength(1);

    advance(5_000);
    scripted.failReads(scripted.onlyJob(), new UpstreamError("HTTP 502", { httpStatus: 502 }));
    await reader.read(target, context());
    // No Retry-After: the quick retries and the next poll read again as usual.
    const afterPlainFailure = readsAt.length;
    advance(1);
    scripted.update(scripted.onlyJob(), workingSnapshot("back"));
    scripted.failReads(scripted.onlyJob(), undefined);
    expect((await reader.read(target, context())).message).toBe("back");
    expect(readsAt).toHaveLength(afterPlainFailure + 1);
  });
});
