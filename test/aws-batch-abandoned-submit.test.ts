import { afterEach, describe, expect, it } from "vitest";
import { awsBatch } from "@jobtasks/aws-batch";
import { startFakeAwsBatch } from "./support/fake-aws-batch-api.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { callToolThenLeave, heldAnswer, observeStart } from "./support/leaving-client.js";

/**
 * A client that disconnects while SubmitJob is in flight, through a real server and the adapter's real SDK
 * client against the loopback Batch fake: AWS has created the job, nobody will hold its task id, so the job
 * must not be left running.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe("AWS Batch: a client that leaves during SubmitJob", () => {
  it("does not leave the job behind: the submit finishes and the job is terminated", async () => {
    const batch = cleanup.add(await startFakeAwsBatch());
    const adapter = awsBatch(
      {
        region: "us-east-1",
        endpoint: batch.url,
        credentials: {
          accessKeyId: "AKIAE2ETESTKEY000001",
          secretAccessKey: "e2e/Secret+Access/Key/Never/Leaks/0123456789",
        },
        templates: [
          {
            tool: "render_frames",
            description: "Render a scene",
            jobQueue: "render-queue",
            jobDefinition: "blender-render:3",
          },
        ],
        retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
        duplicateCheckDelayMs: 10,
      },
      {},
    );
    // Watch the start from the server's side: when it sees the client leave, and how doStart ends.
    const start = observeStart(adapter.tools.find((candidate) => candidate.name === "render_frames")!);
    const server = cleanup.add(await startInProcessServer({ adapters: [{ name: "batch", adapter }] }));

    const upstream = heldAnswer();
    batch.holdSubmitAnswer = upstream.hold;

    const client = callToolThenLeave(server.url, "render_frames");
    await upstream.arrived;
    client.leave();
    expect(await client.answer).toMatchObject({ name: "AbortError" });
    await start.clientLeft;
    upstream.release();
    expect(await start.ended()).toBe("threw");

    const [job] = [...batch.jobs.values()];
    expect(batch.callsTo("submitjob")).toHaveLength(1);
    expect(batch.callsTo("terminatejob").map((terminate) => terminate.body)).toEqual([
      { jobId: job!.jobId, reason: "jobtasks: cancelled, the client left before the task was handed out" },
    ]);
  });
});
