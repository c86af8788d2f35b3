import { describe, expect, it } from "vitest";
import { z, type AdapterContext, type JobAdapterV1, type JobSnapshot } from "@jobtasks/core";
import { createSilentLogger } from "./logger.js";
import { jobIdentity } from "./job-identity.js";
import { SnapshotReader, type ReadTarget } from "./snapshot-reader.js";

/**
 * An adapter whose tasks follow a generation of a job that no event names (GitLab's retry watermark
 * `jobsUpTo`): its events' `jobIdentity` names the job without it. One event reaches the cached snapshot
 * of every generation, and the cache still never serves one generation's answer to another.
 */

type GenerationRef = { jobId: string } | { jobId: string; upTo: number };

function setup() {
  const statuses = new Map<string, JobSnapshot>();
  const reads: string[] = [];
  const nameOf = (ref: GenerationRef) => `${ref.jobId.toLowerCase()}/${"upTo" in ref ? ref.upTo : "any"}`;
  const adapter: JobAdapterV1<GenerationRef> = {
    specificationVersion: "v1",
    kind: "generations",
    tools: [],
    retentionMs: null,
    refSchema: z.union([z.strictObject({ jobId: z.string(), upTo: z.int() }), z.strictObject({ jobId: z.string() })]),
    async doGetStatus(ref) {
      reads.push(nameOf(ref));
      return statuses.get(nameOf(ref)) ?? { status: "working", rawStatus: "running", message: "running" };
    },
    events: {
      doVerifyDelivery: async () => ({ verified: true }),
      doReadDelivery: async () => ({ event: "job", jobs: [] }),
      // Names are case-insensitive upstream; the generation is the task's, never the event's.
      jobIdentity: (ref) => ({ jobId: ref.jobId.toLowerCase() }),
    },
  };
  const reader = new SnapshotReader({ logger: createSilentLogger(), snapshotCacheMs: 60_000, immediateRetries: 0 });
  const target = (ref: GenerationRef): ReadTarget => ({ instance: "ci", adapter, ref });
  return { reader, statuses, reads, target };
}

const context = (): AdapterContext => ({
  signal: new AbortController().signal,
  principal: "test",
  logger: { debug() {}, info() {}, warn() {}, error() {} },
});

const finished: JobSnapshot = { status: "completed", rawStatus: "success", result: { content: [] } };

describe("SnapshotReader and runs of one job that events do not tell apart", () => {
  it("keys the job without its generation and the cache with it", () => {
    const { target } = setup();
    const first = target({ jobId: "Build-7", upTo: 50 });
    const retry = target({ jobId: "build-7", upTo: 90 });
    expect(jobIdentity(first).job).toBe(jobIdentity(retry).job);
    expect(jobIdentity(first).job).toBe(jobIdentity(target({ jobId: "BUILD-7" })).job);
    expect(jobIdentity(first).snapshot).not.toBe(jobIdentity(retry).snapshot);
    // The same run however the name is spelt: one cache entry.
    expect(jobIdentity(first).snapshot).toBe(jobIdentity(target({ jobId: "build-7", upTo: 50 })).snapshot);
  });

  it("drops the cached snapshot of every run an event's job has, so each reads its own again", async () => {
    const { reader, statuses, reads, target } = setup();
    const first = target({ jobId: "build-7", upTo: 50 });
    const retry = target({ jobId: "build-7", upTo: 90 });
    await reader.read(first, context());
    await reader.read(retry, context());
    expect(reads).toEqual(["build-7/50", "build-7/90"]);
    statuses.set("build-7/50", finished);
    statuses.set("build-7/90", { status: "working", rawStatus: "running", message: "retry running" });
    expect(reader.applyEvent(target({ jobId: "BUILD-7" }), {})).toBe("dropped");
    expect((await reader.read(first, context())).status).toBe("completed");
    expect((await reader.read(retry, context())).message).toBe("retry running");
    expect(reads).toEqual(["build-7/50", "build-7/90", "build-7/50", "build-7/90"]);
  });

  it("never serves one run's finished answer to a task of another run, and keeps a finished run finished", async () => {
    const { reader, statuses, reads, target } = setup();
    const first = target({ jobId: "build-7", upTo: 50 });
    statuses.set("build-7/50", finished);
    expect((await reader.read(first, context())).status).toBe("completed");
    const retry = target({ jobId: "build-7", upTo: 90 });
    expect((await reader.read(retry, context())).status).toBe("working");
    statuses.set("build-7/50", { status: "working", rawStatus: "running" });
    expect(reader.applyEvent(target({ jobId: "build-7" }), {})).toBe("dropped");
    expect((await reader.read(first, context())).status).toBe("completed");
    expect(reads).toEqual(["build-7/50", "build-7/90"]);
  });

  it("ignores an event once every run it could reach has finished", async () => {
    const { reader, statuses, target } = setup();
    statuses.set("build-7/50", finished);
    statuses.set("build-7/any", finished);
    await reader.read(target({ jobId: "build-7", upTo: 50 }), context());
    await reader.read(target({ jobId: "build-7" }), context());
    expect(reader.applyEvent(target({ jobId: "build-7" }), {})).toBe("ignored: the job had already ended");
  });
});
