import { afterEach, describe, expect, it } from "vitest";
import { awsBatch } from "@jobtasks/aws-batch";
import { fakeAccount, startFakeAwsBatch, type FakeAwsBatch } from "./support/fake-aws-batch-api.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { recordingClient, type RecordingClient } from "./support/recording-client.js";

/**
 * The AWS Batch adapter behind a real jobtasks server, used the way an agent uses it: submit through a
 * template tool, poll tasks/get through the queue states to the exit code, cancel, follow a job submitted
 * elsewhere. Batch is a loopback fake (support/fake-aws-batch-api.ts) reached through the adapter's real
 * SDK client via its `endpoint` option.
 */

const credentials = {
  accessKeyId: "AKIAE2ETESTKEY000001",
  secretAccessKey: "e2e/Secret+Access/Key/Never/Leaks/0123456789",
};
const secretValues = [credentials.accessKeyId, credentials.secretAccessKey];
const capacityReason =
  `CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY - Service cannot fulfill the capacity requested for instance type [g5.2xlarge] ` +
  `in arn:aws:batch:us-east-1:${fakeAccount}:compute-environment/render-ce`;

const cleanup = new Cleanup();
const clients: RecordingClient[] = [];
afterEach(async () => {
  try {
    // Every answer of every test is checked for the credentials (a failing check fails the test).
    for (const client of clients.splice(0)) client.expectNoneContains(secretValues);
  } finally {
    await cleanup.run();
  }
});

async function serve(
  options: { describeBatchWindowMs?: number } = {},
): Promise<{ batch: FakeAwsBatch; client: RecordingClient }> {
  const batch = cleanup.add(await startFakeAwsBatch());
  const adapter = awsBatch(
    {
      region: "us-east-1",
      endpoint: batch.url,
      credentials,
      templates: [
        {
          tool: "render_frames",
          description: "Render a Blender scene",
          jobQueue: "render-queue",
          jobDefinition: "blender-render:3",
          parameters: {
            scene: { pattern: "[a-z0-9/_-]+\\.blend" },
            quality: { enum: ["draft", "final"], default: "draft" },
          },
          array: { maxSize: 1000 },
          retryAttempts: 2,
        },
      ],
      pollIntervalMs: 1_000,
      // Wide enough that concurrent reads arriving over HTTP on a busy machine still meet in one call.
      describeBatchWindowMs: options.describeBatchWindowMs ?? 100,
      submitsPerSecond: 50,
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
      duplicateCheckDelayMs: 10,
    },
    // Nothing from the machine running the tests: no AWS_* variables, no profile.
    {},
  );
  const server = cleanup.add(await startInProcessServer({ adapters: [{ name: "batch", adapter }] }));
  const client = recordingClient(server.url);
  clients.push(client);
  return { batch, client };
}

async function submit(
  client: RecordingClient,
  args: Record<string, unknown> = { parameters: { scene: "shots/intro.blend" } },
) {
  const created = await client.callTool("render_frames", args);
  expect(created["resultType"]).toBe("task");
  return created;
}

describe("AWS Batch through the server", () => {
  it("submit → RUNNABLE with the capacity reason → RUNNING → SUCCEEDED, completed with the exit code", async () => {
    const { batch, client } = await serve();
    const created = await submit(client);
    expect(created["status"]).toBe("working");
    expect(created["statusMessage"]).toMatch(/^SUBMITTED: render_frames-[0-9a-f]{24}$/);
    expect(created["pollIntervalMs"]).toBe(1_000);
    const taskId = created["taskId"] as string;

    const [submitCall] = batch.callsTo("submitjob");
    expect(submitCall?.body).toMatchObject({
      jobQueue: "render-queue",
      jobDefinition: "blender-render:3",
      parameters: { scene: "shots/intro.blend", quality: "draft" },
      retryStrategy: { attempts: 2 },
    });
    const correlationId = submitCall?.body.tags["jobtasks:correlation-id"] as string;
    expect(submitCall?.body.jobName).toBe(`render_frames-${correlationId}`);
    const job = [...batch.jobs.values()][0]!;
    expect(taskId).not.toContain(job.jobId);
    // The request was signed with the configured key (so the no-leak checks below mean something).
    expect(submitCall?.authorization).toContain(`Credential=${credentials.accessKeyId}/`);

    batch.update(job.jobId, { status: "RUNNABLE", statusReason: capacityReason });
    const runnable = await client.get(taskId);
    expect(runnable["status"]).toBe("working");
    expect(runnable["statusMessage"]).toMatch(
      /^RUNNABLE: CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY - Service cannot fulfill the capacity requested for instance type \[g5\.2xlarge\]/,
    );
    expect(runnable["statusMessage"]).toContain("render-ce");
    // The compute environment's ARN is shortened: no account id reaches the agent.
    expect(runnable["statusMessage"]).not.toContain(fakeAccount);

    const startedAt = Date.now() - 300_000;
    batch.update(job.jobId, { status: "STARTING", statusReason: undefined });
    expect((await client.get(taskId))["statusMessage"]).toBe("STARTING");
    batch.update(job.jobId, { status: "RUNNING", startedAt });
    const running = await client.get(taskId);
    expect(running["status"]).toBe("working");
    expect(running["statusMessage"]).toBe("RUNNING");

    batch.update(job.jobId, {
      status: "SUCCEEDED",
      statusReason: "Essential container in task exited",
      exitCode: 0,
      stoppedAt: startedAt + 252_000,
    });
    const finished = await client.get(taskId);
    expect(finished["status"]).toBe("completed");
    expect(finished["result"]["isError"]).toBeFalsy();
    expect(finished["result"]["structuredContent"]).toMatchObject({
      jobId: job.jobId,
      jobName: job.jobName,
      status: "SUCCEEDED",
      exitCode: 0,
      attempts: 1,
      durationMs: 252_000,
    });
    expect(finished["result"]["content"][0]["text"]).toContain("exit code 0");
    expect(JSON.stringify(finished)).not.toContain(fakeAccount);

    // Terminal answers do not change, even if the upstream record does (Batch never re-runs a job).
    batch.update(job.jobId, { status: "FAILED", exitCode: 1 });
    expect(await client.get(taskId)).toMatchObject({
      status: "completed",
      result: { structuredContent: { exitCode: 0 } },
    });
  });

  it("a job that exits non-zero is completed with isError and its exit code, not failed", async () => {
    const { batch, client } = await serve();
    const taskId = (await submit(client))["taskId"] as string;
    const job = [...batch.jobs.values()][0]!;
    const startedAt = Date.now() - 60_000;
    batch.update(job.jobId, {
      status: "FAILED",
      statusReason: "Essential container in task exited",
      startedAt,
      stoppedAt: startedAt + 42_000,
      exitCode: 137,
      containerReason: "OutOfMemoryError: Container killed due to memory usage",
    });
    const finished = await client.get(taskId);
    expect(finished["status"]).toBe("completed");
    expect(finished["result"]["isError"]).toBe(true);
    expect(finished["result"]["structuredContent"]).toMatchObject({
      status: "FAILED",
      exitCode: 137,
      containerReason: "OutOfMemoryError: Container killed due to memory usage",
    });
    expect(finished).not.toHaveProperty("error");
  });

  it("an array job reports its children's progress", async () => {
    const { batch, client } = await serve();
    const created = await submit(client, { parameters: { scene: "shots/intro.blend" }, arraySize: 1000 });
    expect(created["statusMessage"]).toMatch(/^SUBMITTED: render_frames-[0-9a-f]{24} \(array of 1000\)$/);
    expect(batch.callsTo("submitjob")[0]?.body.arrayProperties).toEqual({ size: 1000 });
    const job = [...batch.jobs.values()][0]!;
    batch.update(job.jobId, {
      status: "PENDING",
      arraySummary: { SUCCEEDED: 734, FAILED: 3, RUNNING: 10, STARTING: 2, RUNNABLE: 251 },
    });
    const progress = await client.get(created["taskId"]);
    expect(progress["status"]).toBe("working");
    expect(progress["statusMessage"]).toBe("PENDING: 734/1000 succeeded, 3 failed, 12 running");

    batch.update(job.jobId, {
      status: "SUCCEEDED",
      arraySummary: { SUCCEEDED: 1000 },
      startedAt: Date.now() - 1000,
      stoppedAt: Date.now(),
    });
    const finished = await client.get(created["taskId"]);
    expect(finished["status"]).toBe("completed");
    expect(finished["result"]["structuredContent"]["array"]).toEqual({ size: 1000, succeeded: 1000, failed: 0 });
  });

  it("tasks/cancel sends TerminateJob; the task ends cancelled once Batch shows the job stopped", async () => {
    const { batch, client } = await serve();
    const taskId = (await submit(client))["taskId"] as string;
    const job = [...batch.jobs.values()][0]!;
    batch.update(job.jobId, { status: "RUNNING", startedAt: Date.now() - 10_000 });

    expect((await client.cancel(taskId))["resultType"]).toBe("complete");
    const terminations = batch.callsTo("terminatejob");
    expect(terminations.map((call) => call.body)).toEqual([
      { jobId: job.jobId, reason: "jobtasks: cancelled via MCP tasks/cancel" },
    ]);
    // Cooperative: Batch has not stopped the container yet.
    expect((await client.get(taskId))["status"]).toBe("working");

    batch.update(job.jobId, {
      status: "FAILED",
      statusReason: "jobtasks: cancelled via MCP tasks/cancel",
      isTerminated: true,
      stoppedAt: Date.now(),
      exitCode: 143,
    });
    const cancelled = await client.get(taskId);
    expect(cancelled["status"]).toBe("cancelled");
    expect(cancelled["statusMessage"]).toBe("Cancelled: jobtasks: cancelled via MCP tasks/cancel");
    expect(cancelled).not.toHaveProperty("result");

    // Cancelling a finished task again does not reach Batch.
    await client.cancel(taskId);
    expect(batch.callsTo("terminatejob")).toHaveLength(1);
  });

  it("many tasks polled at once cost a few DescribeJobs calls, and each task gets its own job", async () => {
    // The widest window the options allow: 30 reads parsed over HTTP on a loaded 2-core machine still
    // arrive well inside it, so the call count below measures coalescing, not the scheduler.
    const { batch, client } = await serve({ describeBatchWindowMs: 1_000 });
    const count = 30;
    const created = await Promise.all(
      Array.from({ length: count }, (_, index) =>
        submit(client, { parameters: { scene: `shots/shot${index}.blend` } }),
      ),
    );
    expect(batch.callsTo("submitjob")).toHaveLength(count);
    // Each job in its own state, so a mixed-up answer would show.
    const expected = new Map<string, string>();
    for (const [index, task] of created.entries()) {
      const job = [...batch.jobs.values()].find(
        (candidate) => candidate.parameters["scene"] === `shots/shot${index}.blend`,
      )!;
      batch.update(job.jobId, {
        status: "RUNNABLE",
        statusReason: `waiting for capacity, position ${index} in the queue`,
      });
      expected.set(task["taskId"], `RUNNABLE: waiting for capacity, position ${index} in the queue`);
    }

    const before = batch.callsTo("describejobs").length;
    const tasks = await Promise.all(created.map((task) => client.get(task["taskId"])));
    const describeCalls = batch.callsTo("describejobs").slice(before);

    for (const task of tasks) expect(task["statusMessage"]).toBe(expected.get(task["taskId"]));
    const describedIds = describeCalls.flatMap((call) => call.body.jobs as string[]);
    expect(new Set(describedIds).size).toBe(count);
    expect(describedIds).toHaveLength(count);
    // One call per task would be 30; coalescing brings it to one, maybe a few on a busy machine.
    expect(describeCalls.length).toBeLessThanOrEqual(3);
  });

  // Once "failed: unknown or expired"; but the job may have finished (even "completed", answered by another
  // replica) before AWS forgot it, and the server stores nothing to tell. "Task has expired" contradicts
  // no earlier answer, so that is the answer now (README: What the server does).
  it("a job DescribeJobs no longer returns answers -32602 Task has expired", async () => {
    const { batch, client } = await serve();
    // Submitted elsewhere, followed with watch_job.
    const elsewhere = batch.addJob({ jobName: "nightly-etl-5c2a", status: "RUNNING", startedAt: Date.now() - 60_000 });
    const watched = await client.callTool("watch_job", { jobId: elsewhere.jobId });
    expect(watched["resultType"]).toBe("task");
    expect(watched["statusMessage"]).toBe("RUNNING");

    batch.jobs.delete(elsewhere.jobId);
    const gone = await client.call("tasks/get", { taskId: watched["taskId"] });
    expect(gone?.error).toEqual({ code: -32602, message: "Failed to retrieve task: Task has expired" });
    // Nothing is remembered: AWS stays the one to ask, and it says the same on every read.
    expect((await client.call("tasks/get", { taskId: watched["taskId"] }))?.error?.code).toBe(-32602);

    // A job this server just submitted that DescribeJobs does not list yet is still being registered.
    const fresh = await submit(client);
    const freshJob = [...batch.jobs.values()].find((job) => job.jobId !== elsewhere.jobId)!;
    batch.jobs.delete(freshJob.jobId);
    const registering = await client.get(fresh["taskId"]);
    expect(registering["status"]).toBe("working");
    expect(registering["statusMessage"]).toBe("SUBMITTED: waiting for AWS Batch to list the job");
  });

  it("credentials never reach the agent, even when AWS echoes the signed request in an error", async () => {
    const { batch, client } = await serve();
    const job = batch.addJob({ jobName: "nightly-etl-7f3b", status: "RUNNING", startedAt: Date.now() - 60_000 });
    const watched = await client.callTool("watch_job", { jobId: job.jobId });
    const refusal = {
      status: 403,
      code: "InvalidSignatureException",
      message:
        "The request signature we calculated does not match the signature you provided. Authorization: {authorization}",
    };
    batch.refuseDescribe.set(job.jobId, refusal);
    const refused = await client.get(watched["taskId"]);
    expect(refused["status"]).toBe("failed");
    expect(refused["error"]["message"]).toContain("InvalidSignatureException");
    expect(refused["error"]["message"]).not.toMatch(/Signature=[0-9a-f]{64}/);

    // The same refusal when starting: a tool error the agent can read, with nothing secret in it.
    const other = batch.addJob({ jobName: "nightly-etl-8a4c", status: "RUNNING" });
    batch.refuseDescribe.set(other.jobId, refusal);
    const started = await client.callTool("watch_job", { jobId: other.jobId });
    expect(started["isError"]).toBe(true);
    expect(started["content"][0]["text"]).toContain("InvalidSignatureException");
    expect(started["content"][0]["text"]).not.toMatch(/Signature=[0-9a-f]{64}/);

    // The fake did echo the key: without the adapter's redaction the answers above would carry it.
    expect(batch.callsTo("describejobs").some((call) => call.authorization?.includes(credentials.accessKeyId))).toBe(
      true,
    );
    client.expectNoneContains(secretValues);
  });
});
