import { afterEach, describe, expect, it } from "vitest";
import { awsBatch } from "@jobtasks/aws-batch";
import { startFakeAwsBatch, type FakeArrayChild, type FakeAwsBatch } from "./support/fake-aws-batch-api.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { recordingClient, type RecordingClient } from "./support/recording-client.js";

/**
 * What a finished AWS Batch job looks like to the agent, through a real server and the adapter's real SDK
 * client against the loopback Batch fake: which children of a failed array failed and why, no attempt
 * invented for an array parent, and times that never run backwards.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function serve(): Promise<{ batch: FakeAwsBatch; client: RecordingClient }> {
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
          array: { maxSize: 1000 },
        },
      ],
      watch: {},
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
      duplicateCheckDelayMs: 10,
    },
    {},
  );
  const server = cleanup.add(await startInProcessServer({ adapters: [{ name: "batch", adapter }] }));
  return { batch, client: recordingClient(server.url) };
}

const oomReason = "OutOfMemoryError: Container killed due to memory usage";

/** Submit an array of `size` and let it end FAILED with these failed children, the rest succeeded. */
async function failedArray(size: number, failed: FakeArrayChild[]) {
  const { batch, client } = await serve();
  const created = await client.callTool("render_frames", { arraySize: size });
  const job = [...batch.jobs.values()][0]!;
  const startedAt = Date.now() - 60_000;
  batch.update(job.jobId, {
    status: "FAILED",
    statusReason: "Array Child Job failed",
    startedAt,
    stoppedAt: startedAt + 4_000,
    arraySummary: { SUCCEEDED: size - failed.length, FAILED: failed.length },
    arrayChildren: failed,
  });
  const task = await client.get(created["taskId"]);
  return { batch, job, task };
}

describe("a finished AWS Batch array job", () => {
  it("names the failed children with their exit codes and reasons, in the text and in structuredContent", async () => {
    const { batch, job, task } = await failedArray(10, [
      {
        index: 7,
        status: "FAILED",
        statusReason: "Essential container in task exited",
        exitCode: 137,
        containerReason: oomReason,
      },
      { index: 3, status: "FAILED", statusReason: "Essential container in task exited", exitCode: 1 },
    ]);
    expect(task["status"]).toBe("completed");
    expect(task["result"]["isError"]).toBe(true);
    const text = task["result"]["content"][0]["text"] as string;
    expect(text).toContain("Array job of 10: 8 succeeded, 2 failed.");
    expect(text).toContain(`Failed children: 3 (exit code 1), 7 (exit code 137: ${oomReason}).`);
    expect(task["result"]["structuredContent"]["array"]).toEqual({
      size: 10,
      succeeded: 8,
      failed: 2,
      failedChildren: [
        { index: 3, jobId: `${job.jobId}:3`, exitCode: 1, statusReason: "Essential container in task exited" },
        {
          index: 7,
          jobId: `${job.jobId}:7`,
          exitCode: 137,
          containerReason: oomReason,
          statusReason: "Essential container in task exited",
        },
      ],
    });
    // One ListJobs call for the children, filtered to the failed ones.
    expect(batch.callsTo("listjobs").map((call) => call.body)).toEqual([
      { arrayJobId: job.jobId, jobStatus: "FAILED", maxResults: 100 },
    ]);
    expect(JSON.stringify(task)).not.toContain("arn:aws");
  });

  it("names at most the first 10 failed children, and says how many more failed", async () => {
    const failed = Array.from({ length: 25 }, (_, position) => ({
      index: 24 - position,
      status: "FAILED",
      exitCode: 2,
    }));
    const { task } = await failedArray(40, failed);
    const text = task["result"]["content"][0]["text"] as string;
    expect(text).toContain(
      "Failed children: 0 (exit code 2), 1 (exit code 2), 2 (exit code 2), 3 (exit code 2), 4 (exit code 2),",
    );
    expect(text).toContain("9 (exit code 2), and 15 more.");
    const array = task["result"]["structuredContent"]["array"];
    expect(array.failedChildren.map((child: { index: number }) => child.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(array.moreFailedChildren).toBe(15);
  });

  it("does not describe an array parent, which has no attempts, as 'Last attempt'", async () => {
    const { task } = await failedArray(10, [{ index: 3, status: "FAILED", exitCode: 1 }]);
    const text = task["result"]["content"][0]["text"] as string;
    expect(task["result"]["structuredContent"]["attempts"]).toBe(0);
    expect(text).not.toContain("Last attempt");
    expect(text).toContain("failed: Array Child Job failed. The array ran 4s.");
  });
});

describe("watch_job on a job that finished before the call", () => {
  it("answers the finished job's result at once, without a task, the job's own end in it", async () => {
    const { batch, client } = await serve();
    const stoppedAt = Date.now() - 3_600_000;
    const job = batch.addJob({
      jobName: "nightly-etl-5c2a",
      status: "SUCCEEDED",
      startedAt: stoppedAt - 60_000,
      stoppedAt,
      exitCode: 0,
    });
    // A job already finished when its tool starts is answered with its plain result (the extension's
    // immediate-result shortcut), so no task exists whose lastUpdatedAt could precede its createdAt.
    const answer = await client.callTool("watch_job", { jobId: job.jobId });
    expect(answer).not.toHaveProperty("taskId");
    expect(answer["resultType"]).toBe("complete");
    expect(answer["structuredContent"]["stoppedAt"]).toBe(new Date(stoppedAt).toISOString());
  });
});
