import { afterEach, describe, expect, it } from "vitest";
import type { JsonValue } from "@jobtasks/core";
import { awsBatch } from "@jobtasks/aws-batch";
import { fakeAccount, startFakeAwsBatch } from "./support/fake-aws-batch-api.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { recordingClient } from "./support/recording-client.js";
import { expectAnsweredAsUnknown, refsOfEveryKind, sealRef } from "./support/sealed-refs.js";

/**
 * The AWS Batch adapter's refSchema, through a real server: a task id whose ref is not one this adapter
 * could have sealed is an unknown task, and Batch (a loopback fake behind the real SDK client) hears
 * nothing of it; every shape the adapter has sealed still opens.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function serve() {
  const batch = cleanup.add(await startFakeAwsBatch());
  const adapter = awsBatch(
    {
      region: "us-east-1",
      endpoint: batch.url,
      credentials: { accessKeyId: "AKIAREFSCHEMAKEY0001", secretAccessKey: "ref/Schema+Secret/Key/0123456789abcdef" },
      templates: [
        {
          tool: "render_frames",
          description: "Render a Blender scene",
          jobQueue: "render-queue",
          jobDefinition: "blender-render:3",
          parameters: { scene: { pattern: "[a-z0-9/_-]+\\.blend" } },
        },
      ],
      describeBatchWindowMs: 0,
      retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
    },
    {},
  );
  const server = cleanup.add(await startInProcessServer({ adapters: [{ name: "batch", adapter }] }));
  const seal = (ref: JsonValue) => sealRef(server.secret, { instance: "batch", tool: "render_frames", ref });
  return { batch, server, seal, client: recordingClient(server.url) };
}

const jobId = "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f";
const forged: Record<string, JsonValue> = {
  ...Object.fromEntries(Object.entries(refsOfEveryKind).filter(([kind]) => !kind.startsWith("aws-batch"))),
  "an ARN for the job id": { jobId: `arn:aws:batch:us-east-1:${fakeAccount}:job/${jobId}` },
  "an empty job id": { jobId: "" },
  "a job id of 65 characters": { jobId: "a".repeat(65) },
  "a numeric job id": { jobId: 42 },
  "a submittedAt in text": { jobId, submittedAt: "2026-12-01T10:00:00Z" },
  "a negative submittedAt": { jobId, submittedAt: -1 },
  "a watchedAt": { jobId, watchedAt: 1_764_547_200_000 },
  "both submittedAt and watchedAt": { jobId, submittedAt: 1_764_547_200_000, watchedAt: 1_764_547_200_000 },
  "an extra member": { jobId, jobQueue: "render-queue" },
};

describe("aws-batch refSchema through the server", () => {
  it("answers a task id holding another adapter's ref, or a forged one, as unknown, and never calls Batch", async () => {
    const { batch, server, seal } = await serve();
    for (const [label, ref] of Object.entries(forged)) await expectAnsweredAsUnknown(server.url, seal(ref), label);
    expect(batch.calls).toEqual([]);
  });

  it("opens the ref a submit seals, and { jobId } and { jobId, submittedAt } sealed before", async () => {
    const { batch, seal, client } = await serve();
    const created = await client.callTool("render_frames", { parameters: { scene: "shots/intro.blend" } });
    expect(created["status"]).toBe("working");
    expect((await client.get(created["taskId"] as string))["status"]).toBe("working");

    const job = batch.addJob({ jobName: "elsewhere", status: "RUNNING", startedAt: Date.now() });
    for (const ref of [{ jobId: job.jobId }, { jobId: job.jobId, submittedAt: Date.now() }]) {
      const task = await client.get(seal(ref));
      expect(task["status"], JSON.stringify(Object.keys(ref))).toBe("working");
      expect(task["statusMessage"]).toBe("RUNNING");
    }
    expect(batch.callsTo("describejobs").filter((call) => call.body.jobs.includes(job.jobId))).toHaveLength(2);

    // An array child's id ("<parent>:<index>", as watch_job takes it) passes too and is asked of Batch,
    // which (this fake) does not list it: the job is gone, "Task has expired", not "Task not found".
    const child = await client.call("tasks/get", { taskId: seal({ jobId: `${job.jobId}:7` }) });
    expect(child?.error?.message).toMatch(/Task has expired/);
    expect(batch.callsTo("describejobs").some((call) => call.body.jobs.includes(`${job.jobId}:7`))).toBe(true);
  });
});
