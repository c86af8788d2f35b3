import { describe, expect, it } from "vitest";
import { type AnyJobAdapter, type JsonValue, z } from "@jobtasks/core";
import { jobIdentity } from "./job-identity.js";

const adapterWith = (declared?: (ref: any) => JsonValue) =>
  ({ events: declared ? { jobIdentity: declared } : undefined }) as unknown as AnyJobAdapter;

/** The key of a job whose adapter declares no identity: then `job` and `snapshot` are one. */
function keyOf(instance: string, ref: JsonValue): string {
  const { job, snapshot } = jobIdentity({ instance, adapter: adapterWith(), ref });
  expect(snapshot).toBe(job);
  return job;
}

describe("jobIdentity of a ref", () => {
  it("spells its keys as fixed strings, which replicas of different versions share through Redis", () => {
    // A change of encoding would split the caches and the answer ledger between old and new replicas in
    // a rolling upgrade: the keys are part of the shared state's format.
    expect(
      jobIdentity({ instance: "ci", adapter: adapterWith(), ref: { runId: 7, attempt: 1, owner: "acme" } }),
    ).toEqual({
      job: '["ci",{"attempt":1,"owner":"acme","runId":7}]',
      snapshot: '["ci",{"attempt":1,"owner":"acme","runId":7}]',
    });
    expect(jobIdentity({ instance: "ci", adapter: adapterWith(), ref: "7" }).job).toBe('["ci","7"]');
    expect(
      jobIdentity({ instance: "gh", adapter: adapterWith((ref) => ref.runId), ref: { runId: 7, attempt: 2 } }),
    ).toEqual({ job: '["gh",7]', snapshot: '["gh",7,{"attempt":2,"runId":7}]' });
  });

  it("is one identity for one job, whatever order the ref's members were written in, nested ones too", () => {
    expect(keyOf("ci", { owner: "acme", repo: "app", runId: 7, attempt: 1 })).toBe(
      keyOf("ci", { attempt: 1, runId: 7, repo: "app", owner: "acme" }),
    );
    expect(keyOf("ci", { job: { id: "a", tags: ["x", "y"] } })).toBe(
      keyOf("ci", { job: { tags: ["x", "y"], id: "a" } }),
    );
  });

  it("tells jobs apart by instance, by ref, and by the order of an array inside the ref", () => {
    const ref = { runId: 7, attempt: 1 };
    expect(keyOf("ci", ref)).not.toBe(keyOf("cd", ref));
    expect(keyOf("ci", ref)).not.toBe(keyOf("ci", { runId: 8, attempt: 1 }));
    expect(keyOf("ci", { ids: [1, 2] })).not.toBe(keyOf("ci", { ids: [2, 1] }));
    expect(keyOf("ci", "7")).not.toBe(keyOf("ci", 7));
  });

  it("keeps the instance and the ref apart whatever the instance name holds", () => {
    expect(keyOf("ci\u0000", "x")).not.toBe(keyOf("ci", "\u0000x"));
    expect(keyOf('ci","x', "y")).not.toBe(keyOf("ci", ["x", "y"]));
  });

  it("gives a sealed ref and the ref its refSchema reads the same identity", () => {
    // A schema that reads an older release's `{ jobId }` as attempt 1, and today's ref in schema order.
    const refSchema = z.union([
      z.strictObject({ jobId: z.string(), attempt: z.int().positive() }),
      z.strictObject({ jobId: z.string() }).transform((ref) => ({ ...ref, attempt: 1 })),
    ]);
    const sealedToday: JsonValue = JSON.parse('{"attempt":1,"jobId":"j-1"}');
    const sealedEarlier: JsonValue = { jobId: "j-1" };
    const parsedToday = refSchema.parse(sealedToday);
    expect(keyOf("ci", parsedToday)).toBe(keyOf("ci", sealedToday));
    expect(keyOf("ci", refSchema.parse(sealedEarlier))).toBe(keyOf("ci", parsedToday));
  });

  it("follows the generation a ref pins: another attempt or retry is another identity, a second watch is not", () => {
    // GitHub Actions pins the run attempt: a re-run keeps the run id and is another task's answer.
    const attempt1 = { owner: "acme", repo: "app", runId: 7, attempt: 1 };
    expect(keyOf("github", { ...attempt1, attempt: 2 })).not.toBe(keyOf("github", attempt1));
    expect(keyOf("github", { ...attempt1 })).toBe(keyOf("github", attempt1));
    // GitLab retries a pipeline in place: `jobsUpTo` marks the run a task follows.
    const pipeline = { project: "group/app", pipelineId: 1001 };
    const firstRun = { ...pipeline, jobsUpTo: 50 };
    const retry = { ...pipeline, retriedAfterJobId: 50 };
    expect(keyOf("gitlab", retry)).not.toBe(keyOf("gitlab", firstRun));
    expect(keyOf("gitlab", { ...pipeline, jobsUpTo: 60 })).not.toBe(keyOf("gitlab", firstRun));
    expect(keyOf("gitlab", { jobsUpTo: 50, ...pipeline })).toBe(keyOf("gitlab", firstRun));
  });

  it("is encoded once per target, and the same for an equal target", () => {
    let calls = 0;
    const adapter = adapterWith((ref) => (calls++, { jobId: ref.jobId }));
    const target = { instance: "rest", adapter, ref: { jobId: "j-1", upTo: 3 } };
    expect(jobIdentity(target)).toBe(jobIdentity(target));
    expect(calls).toBe(1);
    expect(jobIdentity({ ...target })).toEqual(jobIdentity(target));
  });
});

describe("jobIdentity with the identity an adapter's events declare", () => {
  it("keeps one key when the identity names every member of the ref (GitHub's attempt is in its events)", () => {
    const adapter = adapterWith((ref) => ({ ...ref, owner: ref.owner.toLowerCase() }));
    const keys = jobIdentity({ instance: "github", adapter, ref: { owner: "Acme", runId: 7, attempt: 2 } });
    expect(keys.snapshot).toBe(keys.job);
    expect(keys.job).toBe(keyOf("github", { owner: "acme", runId: 7, attempt: 2 }));
  });

  it("keeps the generation the identity leaves out in the snapshot key only", () => {
    const adapter = adapterWith((ref) => ({ project: ref.project.toLowerCase(), pipelineId: ref.pipelineId }));
    const keysOf = (ref: JsonValue) => jobIdentity({ instance: "gitlab", adapter, ref });
    const first = keysOf({ project: "Group/App", pipelineId: 1001, jobsUpTo: 50 });
    const retry = keysOf({ project: "group/app", pipelineId: 1001, jobsUpTo: 90 });
    expect(first.job).toBe(retry.job);
    expect(first.job).toBe(keyOf("gitlab", { project: "group/app", pipelineId: 1001 }));
    expect(first.snapshot).not.toBe(retry.snapshot);
    expect(first.snapshot).toBe(keyOf("gitlab", { project: "group/app", pipelineId: 1001, jobsUpTo: 50 }));
  });

  it("keys the snapshot on the identity and the whole ref when the identity is not an object", () => {
    const adapter = adapterWith((ref) => String(ref.jobId).toLowerCase());
    const upper = jobIdentity({ instance: "rest", adapter, ref: { jobId: "J-1", upTo: 3 } });
    const lower = jobIdentity({ instance: "rest", adapter, ref: { jobId: "j-1", upTo: 4 } });
    expect(upper.job).toBe(lower.job);
    expect(upper.snapshot).not.toBe(lower.snapshot);
    expect(upper.snapshot).not.toBe(upper.job);
  });
});
