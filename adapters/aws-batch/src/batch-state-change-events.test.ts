import { AdapterConfigError, type EventDeliveryV1, type JobSnapshot } from "@jobtasks/core";
import { createTestContext } from "@jobtasks/testkit";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { awsBatch } from "./aws-batch-adapter.js";
import type { AwsBatchOptions } from "./aws-batch-options.js";
import {
  batchOrigin,
  blockRealNetwork,
  fastRetry,
  testCredentials,
  testRegion,
} from "./test-support/aws-test-clients.js";
import { readFixture } from "./test-support/fixtures.js";

beforeEach(blockRealNetwork);
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

const eventSecret = "eventbridge-connection-secret-0123";
const account = "123456789012";
const jobId = "4c7599ae-0a82-49aa-ba5a-4727fcce14a8";

type BatchEvent = { id: string; source: string; "detail-type": string; time: string; detail: Record<string, any> };

const adapterWith = (options: Partial<AwsBatchOptions> = {}, environment: Record<string, string> = {}) =>
  awsBatch(
    {
      region: testRegion,
      credentials: testCredentials,
      retry: fastRetry,
      describeBatchWindowMs: 0,
      eventSecret,
      ...options,
    },
    environment,
  );
const events = (options: Partial<AwsBatchOptions> = {}) => adapterWith(options).events!;

function delivery(
  event: BatchEvent | string,
  headers: Record<string, string> = { "x-jobtasks-event-secret": eventSecret },
): EventDeliveryV1 {
  const text = typeof event === "string" ? event : JSON.stringify(event);
  return {
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
    body: new TextEncoder().encode(text),
    receivedAt: Date.now(),
  };
}

const fixtureEvent = (name: string): BatchEvent => readFixture<BatchEvent>(name);

/** The one job of a verified delivery of a fixture, read by an adapter with these options. */
async function readJob(name: string, options: Partial<AwsBatchOptions> = {}) {
  const read = await events(options).doReadDelivery(delivery(fixtureEvent(name)));
  expect(read.jobs).toHaveLength(1);
  return { read, job: read.jobs[0]! };
}

describe("AWS Batch state-change events: verification", () => {
  it("takes the connection's secret from its header and names the delivery by EventBridge's event id", async () => {
    expect(await events().doVerifyDelivery(delivery(fixtureEvent("event-succeeded.json")))).toEqual({
      verified: true,
      deliveryId: "70b1017b-70af-ad1e-5283-9d0e1f2a3b45",
    });
  });

  it("refuses a wrong secret, a missing header, and a secret of another length, without saying the secret", async () => {
    const event = fixtureEvent("event-succeeded.json");
    const wrong = await events().doVerifyDelivery(
      delivery(event, { "x-jobtasks-event-secret": "not-the-secret-000000000000000" }),
    );
    expect(wrong).toEqual({ verified: false, reason: "x-jobtasks-event-secret does not match the event secret" });
    const prefix = await events().doVerifyDelivery(
      delivery(event, { "x-jobtasks-event-secret": eventSecret.slice(0, 20) }),
    );
    expect(prefix.verified).toBe(false);
    const longer = await events().doVerifyDelivery(delivery(event, { "x-jobtasks-event-secret": `${eventSecret}x` }));
    expect(longer.verified).toBe(false);
    expect(await events().doVerifyDelivery(delivery(event, {}))).toEqual({
      verified: false,
      reason: "no x-jobtasks-event-secret header",
    });
    // The secret under another header name than the one configured is no secret at all.
    expect((await events().doVerifyDelivery(delivery(event, { authorization: eventSecret }))).verified).toBe(false);
    expect(JSON.stringify([wrong, prefix, longer])).not.toContain(eventSecret);
  });

  it("reads the secret from the header eventSecretHeader names, in any case", async () => {
    const custom = events({ eventSecretHeader: "X-Batch-Hook-Key" });
    const event = fixtureEvent("event-running.json");
    expect((await custom.doVerifyDelivery(delivery(event, { "x-batch-hook-key": eventSecret }))).verified).toBe(true);
    expect((await custom.doVerifyDelivery(delivery(event))).verified).toBe(false);
  });

  it("parses a delivery's body once, for both its verification (the event id) and its read", async () => {
    const adapterEvents = events();
    const received = delivery(fixtureEvent("event-running.json"));
    const parse = vi.spyOn(JSON, "parse");
    try {
      expect((await adapterEvents.doVerifyDelivery(received)).verified).toBe(true);
      expect((await adapterEvents.doReadDelivery(received)).jobs).toHaveLength(1);
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });

  it("verifies a body that is not an event without naming a delivery; reading it then fails", async () => {
    const broken = delivery("{ not json");
    expect(await events().doVerifyDelivery(broken)).toEqual({ verified: true });
    await expect(events().doReadDelivery(broken)).rejects.toThrow();
  });

  it("says why a body cannot be read without quoting it (the server logs the reason)", async () => {
    const text = `{"id": "e-1", "source": "aws.batch", "detail": "arn:aws:batch:us-east-1:${account}:job/x" oops}`;
    const error = await events()
      .doReadDelivery(delivery(text))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe("the body is not JSON");
    expect(JSON.stringify(error)).not.toContain(account);
  });

  it("refuses to read a detail whose job id is an ARN, so no ARN becomes a ref", async () => {
    const event = fixtureEvent("event-running.json");
    event.detail["jobId"] = event.detail["jobArn"];
    const error = await events()
      .doReadDelivery(delivery(event))
      .catch((caught: unknown) => caught);
    expect((error as Error).message).toContain("an AWS Batch job id");
    expect((error as Error).message).not.toContain(account);
  });
});

describe("AWS Batch state-change events: options", () => {
  it("declares the event secret as a secret, so the core redacts it", () => {
    expect(adapterWith().secrets).toContain(eventSecret);
  });

  it("takes the secret from BATCH_EVENT_SECRET, has no events without one, and refuses a short one", () => {
    const fromEnvironment = awsBatch(
      { region: testRegion, credentials: testCredentials },
      { BATCH_EVENT_SECRET: eventSecret },
    );
    expect(fromEnvironment.events).toBeDefined();
    expect(fromEnvironment.secrets).toContain(eventSecret);
    expect(awsBatch({ region: testRegion, credentials: testCredentials }, {}).events).toBeUndefined();
    expect(() => awsBatch({ region: testRegion }, { BATCH_EVENT_SECRET: "short" })).toThrow(AdapterConfigError);
    expect(() => awsBatch({ region: testRegion }, { BATCH_EVENT_SECRET: "short" })).toThrow(
      /eventSecret.*BATCH_EVENT_SECRET/,
    );
    expect(() => awsBatch({ region: testRegion, eventSecret: "short" }, {})).toThrow(/eventSecret/);
  });

  it("refuses a header name that is not one", () => {
    expect(() => awsBatch({ region: testRegion, eventSecret, eventSecretHeader: "x secret: yes" }, {})).toThrow(
      /eventSecretHeader/,
    );
  });

  it("names one job by its id, whichever ref a task of it holds", () => {
    const identity = events().jobIdentity!;
    expect(identity({ jobId, submittedAt: 1_764_583_200_000 })).toEqual(identity({ jobId }));
    expect(identity({ jobId: `${jobId}:7` })).not.toEqual(identity({ jobId }));
  });
});

describe("AWS Batch state-change events: what each state tells the task", () => {
  it.each([
    ["event-submitted.json", "SUBMITTED", "2025-12-01T10:00:00.000Z"],
    ["event-pending.json", "PENDING", "2025-12-01T10:00:01.000Z"],
    ["event-starting.json", "STARTING", "2025-12-01T10:01:33.000Z"],
  ])("%s: working, from the event alone, at the event's time", async (name, status, time) => {
    const { read, job } = await readJob(name);
    expect(read).toMatchObject({ event: "Batch Job State Change", action: status });
    expect(job).toEqual({
      ref: { jobId },
      snapshot: { status: "working", rawStatus: status, message: status, updatedAt: time },
    });
  });

  it("RUNNABLE: working with the capacity reason, its compute environment's ARN shortened", async () => {
    const { job } = await readJob("event-runnable.json");
    expect(job.snapshot).toMatchObject({ status: "working", rawStatus: "RUNNABLE" });
    expect(job.snapshot?.message).toMatch(
      /^RUNNABLE: CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY - Service cannot fulfill/,
    );
    expect(job.snapshot?.message).toContain("compute-environment/render-ce");
    expect(JSON.stringify(job)).not.toContain(account);
  });

  it("RUNNING: working, timed at its start, so a late RUNNABLE (an earlier time) cannot replace it", async () => {
    const running = (await readJob("event-running.json")).job;
    const startedAt = fixtureEvent("event-running.json").detail["startedAt"] as number;
    expect(running.snapshot).toEqual({
      status: "working",
      rawStatus: "RUNNING",
      message: "RUNNING",
      updatedAt: new Date(startedAt).toISOString(),
    });
    const runnable = (await readJob("event-runnable.json")).job;
    expect(Date.parse(runnable.snapshot!.updatedAt!)).toBeLessThan(Date.parse(running.snapshot!.updatedAt!));
  });

  it("a retry's RUNNABLE, after its first attempt failed, is later than that attempt's RUNNING", async () => {
    const running = (await readJob("event-running.json")).job;
    const retry = fixtureEvent("event-runnable.json");
    const failedAttempt = fixtureEvent("event-failed.json").detail["attempts"];
    Object.assign(retry.detail, {
      attempts: failedAttempt,
      startedAt: running.snapshot?.updatedAt && Date.parse(running.snapshot.updatedAt),
    });
    retry.time = "2025-12-01T10:05:47Z";
    const { jobs } = await events().doReadDelivery(delivery(retry));
    expect(jobs[0]?.snapshot).toMatchObject({
      rawStatus: "RUNNABLE",
      message: expect.stringContaining("attempt 2 of 2"),
    });
    expect(Date.parse(jobs[0]!.snapshot!.updatedAt!)).toBeGreaterThan(Date.parse(running.snapshot!.updatedAt!));
  });

  it("SUCCEEDED without logs: completed with the exit code, the snapshot a DescribeJobs read gives", async () => {
    const { job } = await readJob("event-succeeded.json");
    expect(job.snapshot).toMatchObject({
      status: "completed",
      rawStatus: "SUCCEEDED",
      updatedAt: "2025-12-01T10:05:47.058Z",
    });
    expect(job.snapshot?.result?.structuredContent).toMatchObject({
      jobId,
      status: "SUCCEEDED",
      exitCode: 0,
      attempts: 1,
    });
    expect(JSON.stringify(job)).not.toContain(account);
    expect(job.snapshot).toEqual(await describedAs("event-succeeded.json"));
  });

  it("RUNNING's snapshot is the one a DescribeJobs read of the same job gives, but for the time", async () => {
    const { job } = await readJob("event-running.json");
    const { updatedAt: _updatedAt, ...fromEvent } = job.snapshot!;
    expect(fromEvent).toEqual(await describedAs("event-running.json"));
  });

  it("FAILED without logs: completed with isError, the exit code and the container's reason", async () => {
    const { job } = await readJob("event-failed.json");
    expect(job.snapshot).toMatchObject({ status: "completed", rawStatus: "FAILED", result: { isError: true } });
    expect(job.snapshot?.result?.structuredContent).toMatchObject({
      exitCode: 137,
      containerReason: "OutOfMemoryError: Container killed due to memory usage",
    });
  });

  it.each(["event-succeeded.json", "event-failed.json"])(
    "%s with logs: changed, read again, since the result's log tail is in CloudWatch, not the event",
    async (name) => {
      const { job } = await readJob(name, { logs: {} });
      expect(job).toEqual({ ref: { jobId }, updatedAt: "2025-12-01T10:05:47.058Z" });
    },
  );

  it("FAILED by a cancel: cancelled, from the event alone, even with logs", async () => {
    const { job } = await readJob("event-failed-cancelled.json", { logs: {} });
    expect(job.snapshot).toMatchObject({
      status: "cancelled",
      rawStatus: "FAILED",
      message: "Cancelled: jobtasks: cancelled via MCP tasks/cancel",
      updatedAt: "2025-12-01T10:00:09.058Z",
    });
  });

  it("a failed array parent: changed, read again, since which children failed needs ListJobs", async () => {
    const event = fixtureEvent("event-failed.json");
    event.detail["arrayProperties"] = { size: 10, statusSummary: { SUCCEEDED: 8, FAILED: 2 } };
    const read = await events().doReadDelivery(delivery(event));
    expect(read.jobs).toEqual([{ ref: { jobId }, updatedAt: "2025-12-01T10:05:47.058Z" }]);
  });

  it("an array child: its own ref, <parent>:<index>, with its snapshot", async () => {
    const { job } = await readJob("event-array-child-succeeded.json");
    expect(job.ref).toEqual({ jobId: `${jobId}:7` });
    expect(job.snapshot).toMatchObject({ status: "completed", rawStatus: "SUCCEEDED" });
    expect(job.snapshot?.result?.structuredContent).toMatchObject({ jobId: `${jobId}:7`, exitCode: 0 });
  });

  it("an event of another source or detail-type concerns no job", async () => {
    const blocked = fixtureEvent("event-runnable.json");
    blocked["detail-type"] = "Batch Job Queue Blocked";
    expect(await events().doReadDelivery(delivery(blocked))).toEqual({ event: "Batch Job Queue Blocked", jobs: [] });
    const ecs = fixtureEvent("event-running.json");
    ecs.source = "aws.ecs";
    expect((await events().doReadDelivery(delivery(ecs))).jobs).toEqual([]);
    expect((await events().doReadDelivery(delivery('{"source":"aws.batch"}'))).jobs).toEqual([]);
  });
});

/** What doGetStatus answers when DescribeJobs returns the event's detail as the job. */
async function describedAs(name: string): Promise<JobSnapshot> {
  const detail = fixtureEvent(name).detail;
  nock(batchOrigin)
    .post("/v1/describejobs")
    .reply(200, { jobs: [detail] });
  const adapter = adapterWith();
  try {
    return await adapter.doGetStatus({ jobId: detail["jobId"] as string }, createTestContext());
  } finally {
    await adapter.close?.();
  }
}
