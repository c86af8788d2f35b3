import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { awsBatch } from "@jobtasks/aws-batch";
import { fakeAccount, startFakeAwsBatch, type FakeAwsBatch } from "./support/fake-aws-batch-api.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { recordingClient, type RecordingClient } from "./support/recording-client.js";

/**
 * AWS Batch's "Batch Job State Change" events through a real jobtasks server, as an EventBridge API
 * destination posts them to /hooks/<instance> with the connection's secret in a header: a delivered
 * SUCCEEDED ends a waiting task_status at once with no Batch request; a wrong secret, a replayed event id
 * and a late RUNNING change nothing. Batch is the loopback fake.
 */

const cleanup = new Cleanup();
const clients: RecordingClient[] = [];
const credentials = { accessKeyId: "AKIAE2EEVENTKEY00001", secretAccessKey: "e2e/Event/Secret/Key/Never/Leaks/0123" };
const eventSecret = "e2e-eventbridge-connection-secret-0123";
afterEach(async () => {
  try {
    for (const client of clients.splice(0))
      client.expectNoneContains([eventSecret, credentials.secretAccessKey, fakeAccount]);
  } finally {
    await cleanup.run();
  }
});

async function serve(options: { logsEndpoint?: string } = {}) {
  const batch = cleanup.add(await startFakeAwsBatch());
  const adapter = awsBatch(
    {
      region: "us-east-1",
      endpoint: batch.url,
      credentials,
      eventSecret,
      ...(options.logsEndpoint ? { logs: { endpoint: options.logsEndpoint } } : {}),
      templates: [
        {
          tool: "render_frames",
          description: "Render a Blender scene",
          jobQueue: "render-queue",
          jobDefinition: "blender-render:3",
        },
      ],
      // Long, so that every change a wait sees here comes from a delivery, not from its own polls.
      pollIntervalMs: 10_000,
      describeBatchWindowMs: 0,
      retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 5 },
    },
    {},
  );
  const server = cleanup.add(
    await startInProcessServer({ adapters: [{ name: "batch", adapter }], service: { snapshotCacheMs: 1000 } }),
  );
  const agent = recordingClient(server.url);
  const host = recordingClient(server.url, { tasks: false });
  clients.push(agent, host);
  return { batch, agent, host, hooks: new URL("/hooks/", server.url) };
}

/** An EventBridge event of the fake's job: a fixture with the job's id and the given state. */
function stateChange(fixture: string, eventId: string, jobId: string, changes: Record<string, unknown> = {}): string {
  const event = JSON.parse(
    readFileSync(new URL(`../adapters/aws-batch/src/__fixtures__/${fixture}`, import.meta.url), "utf8"),
  ) as { id: string; time: string; resources: string[]; detail: Record<string, unknown> };
  event.id = eventId;
  event.resources = [`arn:aws:batch:us-east-1:${fakeAccount}:job/${jobId}`];
  Object.assign(event.detail, { jobId, jobArn: `arn:aws:batch:us-east-1:${fakeAccount}:job/${jobId}`, ...changes });
  return JSON.stringify(event);
}

/** A POST as the API destination sends it; `secret` null leaves the connection's header out. */
async function deliver(hooks: URL, body: string, secret: string | null = eventSecret): Promise<number> {
  const response = await fetch(new URL("batch", hooks), {
    method: "POST",
    headers: {
      "content-type": "application/json; charset=utf-8",
      ...(secret !== null ? { "x-jobtasks-event-secret": secret } : {}),
    },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

const describeCalls = (batch: FakeAwsBatch) => batch.callsTo("describejobs").length;

/** A loopback CloudWatch Logs that answers every GetLogEvents with these lines, counting the calls. */
async function startFakeLogs(lines: string[]) {
  let calls = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      calls += 1;
      response.writeHead(200, { "content-type": "application/x-amz-json-1.1" });
      response.end(
        JSON.stringify({
          events: lines.map((message, index) => ({ timestamp: 1_764_583_400_000 + index, message })),
          nextForwardToken: "f/1",
          nextBackwardToken: "b/1",
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: () => calls,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("AWS Batch state-change events through the server", () => {
  it("a SUCCEEDED event ends a waiting task_status at once with no Batch request; a wrong secret, a replay and a late RUNNING change nothing", async () => {
    const { batch, agent, host, hooks } = await serve();
    const taskId = (await agent.callTool("render_frames", {}))["taskId"] as string;
    const job = [...batch.jobs.values()][0]!;
    const startedAt = Date.now() - 60_000;
    batch.update(job.jobId, { status: "RUNNING", startedAt });

    // A host without the extension follows the handle with task_status, which waits.
    let answered = false;
    const waiting = host.callTool("task_status", { taskId, waitSeconds: 20 }).finally(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const callsBefore = batch.calls.length;

    // The job finishes upstream, and EventBridge says so.
    const stoppedAt = startedAt + 42_000;
    batch.update(job.jobId, { status: "SUCCEEDED", exitCode: 0, stoppedAt });
    const succeeded = stateChange("event-succeeded.json", "e-succeeded", job.jobId, {
      jobName: job.jobName,
      startedAt,
      stoppedAt,
    });

    // Another secret, none, or a prefix of the right one: 401, no Batch request, the wait goes on.
    expect(await deliver(hooks, succeeded, "not-the-connection-secret-000000")).toBe(401);
    expect(await deliver(hooks, succeeded, null)).toBe(401);
    expect(await deliver(hooks, succeeded, eventSecret.slice(0, -1))).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(batch.calls.length).toBe(callsBefore);
    expect(answered).toBe(false);

    // The real delivery: the wait answers with the exit code at once, from the event alone.
    const deliveredAt = Date.now();
    expect(await deliver(hooks, succeeded)).toBe(202);
    const status = (await waiting) as { structuredContent: Record<string, any> };
    expect(Date.now() - deliveredAt).toBeLessThan(1000);
    expect(status.structuredContent["status"]).toBe("completed");
    expect(JSON.stringify(status)).toContain("exit code 0");
    expect(batch.calls.length).toBe(callsBefore);

    // Replayed (EventBridge retries with the same event id): 2xx, no effect, even with another body.
    const running = stateChange("event-running.json", "e-succeeded", job.jobId, { startedAt });
    expect(await deliver(hooks, running)).toBe(200);
    // A RUNNING that EventBridge delivers late, under its own id, cannot move the finished task back.
    const lateRunning = stateChange("event-running.json", "e-late-running", job.jobId, { startedAt });
    expect(await deliver(hooks, lateRunning)).toBe(202);
    const after = await agent.get(taskId);
    expect(after["status"]).toBe("completed");
    expect(after["result"]["structuredContent"]).toMatchObject({ jobId: job.jobId, exitCode: 0, durationMs: 42_000 });
    expect(batch.calls.length).toBe(callsBefore);
  });

  it("with logs, a SUCCEEDED event means read again: the wait answers at once with the log tail, after one DescribeJobs", async () => {
    const logs = cleanup.add(await startFakeLogs(["Fra:250 rendered", "render finished in 251.8 s"]));
    const { batch, agent, host, hooks } = await serve({ logsEndpoint: logs.url });
    const taskId = (await agent.callTool("render_frames", {}))["taskId"] as string;
    const job = [...batch.jobs.values()][0]!;
    // Stopped long enough ago for its log to have settled (logs.settleMs), as an event's job has by the time
    // a client looks.
    const startedAt = Date.now() - 300_000;
    batch.update(job.jobId, { status: "RUNNING", startedAt });
    const waiting = host.callTool("task_status", { taskId, waitSeconds: 20 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const describesBefore = describeCalls(batch);

    const stoppedAt = Date.now() - 30_000;
    batch.update(job.jobId, { status: "SUCCEEDED", exitCode: 0, stoppedAt });
    const deliveredAt = Date.now();
    const succeeded = stateChange("event-succeeded.json", "e-logs-succeeded", job.jobId, { startedAt, stoppedAt });
    expect(await deliver(hooks, succeeded)).toBe(202);
    const status = (await waiting) as { structuredContent: Record<string, any> };
    expect(Date.now() - deliveredAt).toBeLessThan(1000);
    expect(status.structuredContent["status"]).toBe("completed");
    expect(JSON.stringify(status)).toContain("render finished in 251.8 s");
    expect(describeCalls(batch)).toBe(describesBefore + 1);
    expect(logs.calls()).toBe(1);
  });

  it("events reach a job followed with watch_job, and a RUNNABLE delivered after RUNNING does not move it back", async () => {
    const { batch, agent, hooks } = await serve();
    const job = batch.addJob({ jobName: "nightly-etl-5c2a", status: "RUNNABLE" });
    const taskId = (await agent.callTool("watch_job", { jobId: job.jobId }))["taskId"] as string;
    expect((await agent.get(taskId))["statusMessage"]).toBe("RUNNABLE");

    const startedAt = Date.parse("2025-12-01T10:01:35.250Z");
    const callsBefore = describeCalls(batch);
    const running = stateChange("event-running.json", "e-running", job.jobId, { startedAt });
    expect(await deliver(hooks, running)).toBe(202);
    expect(await agent.get(taskId)).toMatchObject({ status: "working", statusMessage: "RUNNING" });

    // The RUNNABLE before it, at 10:00:02 in EventBridge's time, arrives last.
    const runnable = stateChange("event-runnable.json", "e-runnable", job.jobId);
    expect(await deliver(hooks, runnable)).toBe(202);
    expect(await agent.get(taskId)).toMatchObject({ status: "working", statusMessage: "RUNNING" });
    expect(describeCalls(batch)).toBe(callsBefore);

    // Another kind of event sent to this instance concerns no job and changes nothing.
    const blocked = JSON.parse(runnable) as Record<string, unknown>;
    blocked["id"] = "e-queue-blocked";
    blocked["detail-type"] = "Batch Job Queue Blocked";
    expect(await deliver(hooks, JSON.stringify(blocked))).toBe(202);
    expect(await agent.get(taskId)).toMatchObject({ statusMessage: "RUNNING" });
  });
});
