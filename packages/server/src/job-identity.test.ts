import { describe, expect, it } from "vitest";
import { type AnyJobAdapter, type JsonValue, z } from "@jobtasks/core";
import { jobIdentity, jobKeysOf } from "./job-identity.js";

describe("jobIdentity", () => {
  it("is one identity for one job, whatever order the ref's members were written in, nested ones too", () => {
    expect(jobIdentity("ci", { owner: "acme", repo: "app", runId: 7, attempt: 1 })).toBe(
      jobIdentity("ci", { attempt: 1, runId: 7, repo: "app", owner: "acme" }),
    );
    expect(jobIdentity("ci", { job: { id: "a", tags: ["x", "y"] } })).toBe(
      jobIdentity("ci", { job: { tags: ["x", "y"], id: "a" } }),
    );
  });

  it("tells jobs apart by instance, by ref, and by the order of an array inside the ref", () => {
    const ref = { runId: 7, attempt: 1 };
    expect(jobIdentity("ci", ref)).not.toBe(jobIdentity("cd", ref));
    expect(jobIdentity("ci", ref)).not.toBe(jobIdentity("ci", { runId: 8, attempt: 1 }));
    expect(jobIdentity("ci", { ids: [1, 2] })).not.toBe(jobIdentity("ci", { ids: [2, 1] }));
    expect(jobIdentity("ci", "7")).not.toBe(jobIdentity("ci", 7));
  });

  it("keeps the instance and the ref apart whatever the instance name holds", () => {
    expect(jobIdentity("ci\u0000", "x")).not.toBe(jobIdentity("ci", "\u0000x"));
    expect(jobIdentity('ci","x', "y")).not.toBe(jobIdentity("ci", ["x", "y"]));
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
    expect(jobIdentity("ci", parsedToday)).toBe(jobIdentity("ci", sealedToday));
    expect(jobIdentity("ci", refSchema.parse(sealedEarlier))).toBe(jobIdentity("ci", parsedToday));
  });

  it("follows the generation a ref pins: another attempt or retry is another identity, a second watch is not", () => {
    // GitHub Actions pins the run attempt: a re-run keeps the run id and is another task's answer.
    const attempt1 = { owner: "acme", repo: "app", runId: 7, attempt: 1 };
    expect(jobIdentity("github", { ...attempt1, attempt: 2 })).not.toBe(jobIdentity("github", attempt1));
    expect(jobIdentity("github", { ...attempt1 })).toBe(jobIdentity("github", attempt1));
    // GitLab retries a pipeline in place: `jobsUpTo` marks the run a task follows.
    const pipeline = { project: "group/app", pipelineId: 1001 };
    const firstRun = { ...pipeline, jobsUpTo: 50 };
    const retry = { ...pipeline, retriedAfterJobId: 50 };
    expect(jobIdentity("gitlab", retry)).not.toBe(jobIdentity("gitlab", firstRun));
    expect(jobIdentity("gitlab", { ...pipeline, jobsUpTo: 60 })).not.toBe(jobIdentity("gitlab", firstRun));
    expect(jobIdentity("gitlab", { jobsUpTo: 50, ...pipeline })).toBe(jobIdentity("gitlab", firstRun));
  });
});

describe("jobKeysOf", () => {
  const adapterWith = (jobIdentity?: (ref: any) => JsonValue) =>
    ({ events: jobIdentity ? { jobIdentity } : undefined }) as unknown as AnyJobAdapter;

  it("is the ref's identity for both keys when the adapter declares none", () => {
    const ref = { project: "group/app", pipelineId: 1001, jobsUpTo: 50 };
    expect(jobKeysOf({ instance: "gitlab", adapter: adapterWith(), ref })).toEqual({
      job: jobIdentity("gitlab", ref),
      snapshot: jobIdentity("gitlab", ref),
    });
  });

  it("keeps one key when the identity names every member of the ref (GitHub's attempt is in its events)", () => {
    const adapter = adapterWith((ref) => ({ ...ref, owner: ref.owner.toLowerCase() }));
    const keys = jobKeysOf({ instance: "github", adapter, ref: { owner: "Acme", runId: 7, attempt: 2 } });
    expect(keys.snapshot).toBe(keys.job);
    expect(keys.job).toBe(jobIdentity("github", { owner: "acme", runId: 7, attempt: 2 }));
  });

  it("keeps the generation the identity leaves out in the snapshot key only", () => {
    const adapter = adapterWith((ref) => ({ project: ref.project.toLowerCase(), pipelineId: ref.pipelineId }));
    const keysOf = (ref: JsonValue) => jobKeysOf({ instance: "gitlab", adapter, ref });
    const first = keysOf({ project: "Group/App", pipelineId: 1001, jobsUpTo: 50 });
    const retry = keysOf({ project: "group/app", pipelineId: 1001, jobsUpTo: 90 });
    expect(first.job).toBe(retry.job);
    expect(first.job).toBe(jobIdentity("gitlab", { project: "group/app", pipelineId: 1001 }));
    expect(first.snapshot).not.toBe(retry.snapshot);
    expect(first.snapshot).toBe(jobIdentity("gitlab", { project: "group/app", pipelineId: 1001, jobsUpTo: 50 }));
  });

  it("keys the snapshot on the identity and the whole ref when the identity is not an object", () => {
    const adapter = adapterWith((ref) => String(ref.jobId).toLowerCase());
    const upper = jobKeysOf({ instance: "rest", adapter, ref: { jobId: "J-1", upTo: 3 } });
    const lower = jobKeysOf({ instance: "rest", adapter, ref: { jobId: "j-1", upTo: 4 } });
    expect(upper.job).toBe(lower.job);
    expect(upper.snapshot).not.toBe(lower.snapshot);
    expect(upper.snapshot).not.toBe(upper.job);
  });
});
