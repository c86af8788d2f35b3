import { JobNotFoundError, UpstreamError } from "@jobtasks/core";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { awsBatch } from "./aws-batch-adapter.js";
import {
  batchOrigin,
  blockRealNetwork,
  fastRetry,
  logsOrigin,
  testBatchClient,
  testCredentials,
  testLogsClient,
  testRegion,
  throttledReply,
} from "./test-support/aws-test-clients.js";
import { readFixture } from "./test-support/fixtures.js";
import { createTestContext } from "@jobtasks/testkit";

const runningJobId = "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f";

/** The running fixture's job under another id. */
function fixtureJobRecord(jobId: string): Record<string, unknown> {
  return { ...readFixture<{ jobs: Record<string, unknown>[] }>("describe-jobs-running.json").jobs[0], jobId };
}

function adapterUnderTest() {
  return awsBatch({ batchClient: testBatchClient(1), retry: fastRetry, describeBatchWindowMs: 5 });
}

function watchStart(adapter: ReturnType<typeof awsBatch>, jobId: string) {
  const watch = adapter.tools.find((tool) => tool.name === "watch_job")!;
  return watch.doStart(watch.inputSchema.parse({ jobId }), createTestContext());
}

/** Answers DescribeJobs with one copy of the running fixture per asked id, and counts calls and ids. */
function describeJobsEcho() {
  const calls: string[][] = [];
  const template = readFixture<{ jobs: Record<string, unknown>[] }>("describe-jobs-running.json").jobs[0];
  nock(batchOrigin)
    .post("/v1/describejobs")
    .times(100)
    .reply(200, (_uri, body) => {
      const jobIds = (body as { jobs: string[] }).jobs;
      calls.push(jobIds);
      return { jobs: jobIds.map((jobId) => ({ ...template, jobId })) };
    });
  return calls;
}

describe("awsBatch adapter over the SDK's real HTTP stack", () => {
  beforeEach(blockRealNetwork);
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it("reads a job's status with POST /v1/describejobs", async () => {
    nock(batchOrigin)
      .post("/v1/describejobs", { jobs: [runningJobId] })
      .reply(200, readFixture("describe-jobs-running.json"));
    const snapshot = await adapterUnderTest().doGetStatus({ jobId: runningJobId }, createTestContext());
    expect(snapshot).toMatchObject({ status: "working", rawStatus: "RUNNING", message: "RUNNING" });
    expect(nock.isDone()).toBe(true);
  });

  it("coalesces 250 concurrent status reads into 3 DescribeJobs calls", async () => {
    const calls = describeJobsEcho();
    const adapter = adapterUnderTest();
    const ids = Array.from({ length: 250 }, (_, index) => `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`);
    const snapshots = await Promise.all(ids.map((jobId) => adapter.doGetStatus({ jobId }, createTestContext())));
    expect(snapshots.every((snapshot) => snapshot.status === "working")).toBe(true);
    expect(calls).toHaveLength(3);
    expect(calls.map((call) => call.length).sort((a, b) => b - a)).toEqual([100, 100, 50]);
    expect(new Set(calls.flat()).size).toBe(250);
  });

  it("ends a job DescribeJobs no longer returns with JobNotFoundError (the task fails: unknown or expired)", async () => {
    nock(batchOrigin).post("/v1/describejobs").reply(200, { jobs: [] });
    const failure = adapterUnderTest().doGetStatus({ jobId: runningJobId }, createTestContext());
    await expect(failure).rejects.toBeInstanceOf(JobNotFoundError);
    await expect(failure).rejects.toThrow(/unknown or expired/);
  });

  it("keeps a job that was just submitted working while DescribeJobs does not list it yet", async () => {
    nock(batchOrigin).post("/v1/describejobs").reply(200, { jobs: [] });
    const snapshot = await adapterUnderTest().doGetStatus(
      { jobId: runningJobId, submittedAt: Date.now() },
      createTestContext(),
    );
    expect(snapshot).toMatchObject({ status: "working", rawStatus: "SUBMITTED" });
  });

  it("keeps a job id another caller got wrong from failing this caller's read in the same DescribeJobs", async () => {
    // Like the real API: one id that fails its pattern check makes AWS refuse the whole call.
    nock(batchOrigin)
      .persist()
      .post("/v1/describejobs")
      .reply((_uri, body) => {
        const jobIds = (body as { jobs: string[] }).jobs;
        if (jobIds.some((id) => !/^[0-9a-f-]{36}$/.test(id))) {
          return [
            400,
            { __type: "ClientException", message: "Provided name is not supported pattern" },
            { "x-amzn-errortype": "ClientException" },
          ];
        }
        return [200, { jobs: jobIds.map((jobId) => fixtureJobRecord(jobId)) }];
      });
    const adapter = adapterUnderTest();
    const watch = adapter.tools.find((tool) => tool.name === "watch_job");
    const [bobsRead, mallorysWatch] = await Promise.allSettled([
      adapter.doGetStatus({ jobId: runningJobId }, createTestContext({ principal: "bob" })),
      watch?.doStart(watch.inputSchema.parse({ jobId: "Z" }), createTestContext({ principal: "mallory" })),
    ]);
    expect(bobsRead).toMatchObject({ status: "fulfilled", value: { status: "working", rawStatus: "RUNNING" } });
    expect(mallorysWatch.status).toBe("rejected");
    const refusal = (mallorysWatch as PromiseRejectedResult).reason as UpstreamError;
    expect(refusal.isRetryable).toBe(false);
    expect(refusal.message).toContain("job Z");
    expect(refusal.message).not.toContain(runningJobId);
  });

  // A status read sends DescribeJobs once (the server's reader retries it); this test once arranged the
  // adapter's own retries of the read.
  it("treats a 2xx DescribeJobs answer whose body cannot be read (a proxy page, a cut body) as retryable", async () => {
    nock(batchOrigin).post("/v1/describejobs").reply(200, "<html>gateway</html>", { "content-type": "text/html" });
    const error = await adapterUnderTest()
      .doGetStatus({ jobId: runningJobId }, createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).isRetryable).toBe(true);
    expect(nock.isDone()).toBe(true);
  });

  it("sends a throttled status read once, classified as throttled, for the server's reader to retry", async () => {
    const scope = nock(batchOrigin)
      .post("/v1/describejobs")
      .reply(...throttledReply());
    const error = await adapterUnderTest()
      .doGetStatus({ jobId: runningJobId }, createTestContext())
      .catch((caught: unknown) => caught);
    // No retryAfterMs: AWS named no wait, and an invented one would hold every poll of the job off.
    expect(error).toMatchObject({ isRetryable: true, isThrottled: true, httpStatus: 429, retryAfterMs: undefined });
    expect(scope.isDone()).toBe(true);
  });

  // These two were status reads until the server's reader became their only retry loop; watch_job's start,
  // which the server never retries, still backs off.
  it("backs off on TooManyRequestsException in watch_job's start and succeeds once AWS lets it", async () => {
    nock(batchOrigin)
      .post("/v1/describejobs")
      .times(2)
      .reply(...throttledReply())
      .post("/v1/describejobs")
      .reply(200, readFixture("describe-jobs-running.json"));
    const started = await watchStart(adapterUnderTest(), runningJobId);
    expect(started.snapshot?.status).toBe("working");
    expect(nock.isDone()).toBe(true);
  });

  it("gives up watch_job's start after the retry budget with a retryable error that says how long to wait", async () => {
    const scope = nock(batchOrigin)
      .post("/v1/describejobs")
      .times(fastRetry.maxAttempts)
      .reply(...throttledReply());
    const error = await watchStart(adapterUnderTest(), runningJobId).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({
      isRetryable: true,
      isThrottled: true,
      httpStatus: 429,
      retryAfterMs: fastRetry.maxDelayMs,
    });
    expect((error as Error).message).toContain("TooManyRequestsException");
    expect(scope.isDone()).toBe(true);
  });

  it("does not retry a client error, and keeps credentials and account ids out of its message", async () => {
    nock(batchOrigin).post("/v1/describejobs").reply(
      403,
      {
        __type: "AccessDeniedException",
        message: "User: arn:aws:iam::123456789012:user/ci is not authorized to perform: batch:DescribeJobs",
      },
      { "x-amzn-errortype": "AccessDeniedException" },
    );
    const error = (await adapterUnderTest()
      .doGetStatus({ jobId: runningJobId }, createTestContext())
      .catch((caught: unknown) => caught)) as UpstreamError;
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.isRetryable).toBe(false);
    expect(error.message).toContain("user/ci is not authorized");
    expect(error.message).not.toContain("123456789012");
    for (const secret of Object.values(testCredentials)) expect(error.message).not.toContain(secret);
  });

  it("keeps access key ids and signatures out of messages even when the key came from the SDK's own chain", async () => {
    // Not configured in options, so not redacted by value: a response quoting the signed request must still not leak it.
    nock(batchOrigin)
      .post("/v1/describejobs")
      .reply(
        400,
        (_uri, _body) => ({
          __type: "ClientException",
          message: "bad request: Credential=ASIAEXAMPLEKEY000001/20261129, Signature=" + "ab".repeat(32),
        }),
        { "x-amzn-errortype": "ClientException" },
      );
    const error = (await adapterUnderTest()
      .doGetStatus({ jobId: runningJobId }, createTestContext())
      .catch((caught: unknown) => caught)) as UpstreamError;
    expect(error.message).toContain("Credential=[redacted]/20261129, Signature=[redacted]");
  });

  it("reports a job that stopped moments ago as working until its log has settled, so the result never changes", async () => {
    const justStopped = readFixture<{ jobs: Record<string, unknown>[] }>("describe-jobs-succeeded.json");
    (justStopped.jobs[0] as Record<string, unknown>).stoppedAt = Date.now() - 1000;
    nock(batchOrigin).post("/v1/describejobs").reply(200, justStopped);
    const adapter = awsBatch({
      batchClient: testBatchClient(1),
      logsClient: testLogsClient(),
      logs: {},
      retry: fastRetry,
    });
    const snapshot = await adapter.doGetStatus({ jobId: runningJobId }, createTestContext());
    expect(snapshot).toEqual({
      status: "working",
      rawStatus: "SUCCEEDED",
      message: "SUCCEEDED: collecting the end of the log",
    });
  });

  it("reads a finished job's log tail from CloudWatch Logs when configured", async () => {
    nock(batchOrigin).post("/v1/describejobs").reply(200, readFixture("describe-jobs-failed.json"));
    const logs = nock(logsOrigin)
      // The job definition names its own log group; it wins over the default.
      .post("/", {
        logGroupName: "/batch/etl",
        logStreamName: "etl/default/eeee5555ffff6666aaaa7777bbbb8888",
        startFromHead: false,
        limit: 50,
      })
      .matchHeader("x-amz-target", "Logs_20140328.GetLogEvents")
      .reply(200, readFixture("get-log-events.json"));
    const adapter = awsBatch({
      batchClient: testBatchClient(1),
      logsClient: testLogsClient(),
      logs: { maxBytes: 80 },
      retry: fastRetry,
    });
    const snapshot = await adapter.doGetStatus({ jobId: "2b3c4d5e-1111-4111-8111-111111111111" }, createTestContext());
    expect(logs.isDone()).toBe(true);
    expect(snapshot.result?.isError).toBe(true);
    expect(snapshot.result?.structuredContent).toMatchObject({
      logTail: "  File \"/app/etl/load.py\", line 88, in load\nKeyError: 'customer_id'",
      logTailTruncated: true,
    });
  });

  it("finishes a job whose log CloudWatch Logs refuses to read (InvalidParameterException), with a note instead of the tail", async () => {
    nock(batchOrigin).post("/v1/describejobs").reply(200, readFixture("describe-jobs-failed.json"));
    nock(logsOrigin)
      .post("/")
      .reply(
        400,
        { __type: "InvalidParameterException", message: "bad stream" },
        { "x-amzn-errortype": "InvalidParameterException" },
      );
    const adapter = awsBatch({
      batchClient: testBatchClient(1),
      logsClient: testLogsClient(),
      logs: {},
      retry: fastRetry,
    });
    const snapshot = await adapter.doGetStatus({ jobId: "2b3c4d5e-1111-4111-8111-111111111111" }, createTestContext());
    expect(snapshot.status).toBe("completed");
    expect(snapshot.result?.structuredContent).toMatchObject({ logNote: expect.stringMatching(/^log unavailable: /) });
  });

  it("reads the log of a job that logs to another Region (awslogs-region) with a client it builds for that Region", async () => {
    const failed = readFixture<{ jobs: { container: { logConfiguration?: unknown } }[] }>("describe-jobs-failed.json");
    const job = failed.jobs[0];
    if (job)
      job.container.logConfiguration = {
        logDriver: "awslogs",
        options: { "awslogs-group": "/batch/etl", "awslogs-region": "eu-west-1" },
      };
    nock(batchOrigin).post("/v1/describejobs").reply(200, failed);
    const ireland = nock("https://logs.eu-west-1.amazonaws.com")
      .post("/")
      .reply(200, { events: [{ timestamp: 1, message: "from Ireland" }] });
    const adapter = awsBatch({ region: testRegion, credentials: testCredentials, logs: {}, retry: fastRetry }, {});
    const snapshot = await adapter.doGetStatus({ jobId: "2b3c4d5e-1111-4111-8111-111111111111" }, createTestContext());
    await adapter.close?.();
    expect(ireland.isDone()).toBe(true);
    expect(snapshot.result?.structuredContent).toMatchObject({ logTail: "from Ireland" });
  });
});
