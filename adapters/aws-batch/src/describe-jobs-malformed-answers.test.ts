import { JobNotFoundError, UpstreamError } from "@jobtasks/core";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { awsBatch } from "./aws-batch-adapter.js";
import { batchOrigin, blockRealNetwork, fastRetry, testBatchClient } from "./test-support/aws-test-clients.js";
import { createTestContext } from "@jobtasks/testkit";

const jobId = "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f";

/**
 * Everything that escapes a promise chain while a test runs. Node's default for an unhandled rejection is
 * to end the process: for `jobtasks serve` that ends every task of every adapter at once.
 */
function recordEscapes() {
  const escaped: unknown[] = [];
  const record = (error: unknown) => void escaped.push(error);
  process.on("unhandledRejection", record);
  process.on("uncaughtException", record);
  return {
    escaped,
    async stop() {
      // An unhandled rejection is reported once the microtask queue is empty: give it that chance.
      await new Promise((resolve) => setTimeout(resolve, 20));
      process.off("unhandledRejection", record);
      process.off("uncaughtException", record);
    },
  };
}

/** A status read that gives up after a while instead of hanging when nothing ever settles it. */
function readStatus(body: string) {
  nock(batchOrigin).post("/v1/describejobs").times(10).reply(200, body, { "content-type": "application/json" });
  const adapter = awsBatch({ batchClient: testBatchClient(1), retry: fastRetry, describeBatchWindowMs: 1 });
  const context = { ...createTestContext(), signal: AbortSignal.timeout(2000) };
  return adapter.doGetStatus({ jobId }, context).catch((caught: unknown) => caught);
}

describe("a 200 DescribeJobs answer that is not the documented shape", () => {
  beforeEach(blockRealNetwork);
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it.each([
    ["an entry that is null", '{"jobs":[null]}'],
    ["an entry that is a number", '{"jobs":[5]}'],
    ["jobs that is an object", '{"jobs":{"a":1}}'],
    ["jobs that is a string", '{"jobs":"x"}'],
    ["an entry without a job id", '{"jobs":[{"status":"RUNNING"}]}'],
  ])("with %s is a retryable unreadable answer, and nothing escapes to crash the process", async (_case, body) => {
    const escapes = recordEscapes();
    const error = await readStatus(body);
    await escapes.stop();
    expect(escapes.escaped).toEqual([]);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).isRetryable).toBe(true);
    expect((error as Error).message).toMatch(/DescribeJobs .*unreadable/);
  });

  // Only an id missing from a well-formed jobs array means "unknown or expired"; a body with no jobs array
  // at all says nothing about any job, and treating it as "gone" would fail every task in the batch for good.
  it.each([
    ["an empty body", ""],
    ["an empty object", "{}"],
    ["jobs that is null", '{"jobs":null}'],
  ])("with %s is unreadable and retryable, not 'unknown or expired'", async (_case, body) => {
    const error = await readStatus(body);
    expect(error).not.toBeInstanceOf(JobNotFoundError);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).isRetryable).toBe(true);
  });

  it("still reports an id missing from a well-formed jobs array as unknown or expired", async () => {
    expect(await readStatus('{"jobs":[]}')).toBeInstanceOf(JobNotFoundError);
  });

  it.each([
    ["stoppedAt", { status: "SUCCEEDED", stoppedAt: 1e20, startedAt: 0 }],
    [
      "statusSummaryLastUpdatedAt",
      { status: "PENDING", arrayProperties: { size: 3, statusSummaryLastUpdatedAt: 1e20 } },
    ],
  ])("ignores a %s outside the range of dates instead of throwing", async (_field, fields) => {
    const snapshot = await readStatus(JSON.stringify({ jobs: [{ jobId, jobName: "n", ...fields }] }));
    expect(snapshot).toMatchObject({ rawStatus: fields.status });
    expect((snapshot as { updatedAt?: string }).updatedAt).toBeUndefined();
  });
});
