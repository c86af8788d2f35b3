import { InvalidToolInputError } from "@jobtasks/core";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { awsBatch } from "./aws-batch-adapter.js";
import type { AwsBatchOptions } from "./aws-batch-options.js";
import { batchOrigin, blockRealNetwork, fastRetry, testBatchClient } from "./test-support/aws-test-clients.js";
import { readFixture } from "./test-support/fixtures.js";
import { createTestContext } from "@jobtasks/testkit";

const jobId = "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f";

function watchTool(watch: AwsBatchOptions["watch"] = {}) {
  const adapter = awsBatch({ batchClient: testBatchClient(1), retry: fastRetry, describeBatchWindowMs: 1, watch });
  const tool = adapter.tools[0];
  if (!tool) throw new Error("no watch tool");
  return tool;
}

describe("watch_job", () => {
  beforeEach(blockRealNetwork);
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it("makes a task for a job submitted elsewhere, starting from its current state", async () => {
    nock(batchOrigin)
      .post("/v1/describejobs", { jobs: [jobId] })
      .reply(200, readFixture("describe-jobs-running.json"));
    const started = await watchTool().doStart({ jobId }, createTestContext());
    expect(started.ref).toEqual({ jobId });
    expect(started.snapshot).toMatchObject({ status: "working", rawStatus: "RUNNING" });
  });

  it("can watch a job that already finished", async () => {
    nock(batchOrigin).post("/v1/describejobs").reply(200, readFixture("describe-jobs-succeeded.json"));
    const started = await watchTool().doStart({ jobId }, createTestContext());
    expect(started.snapshot).toMatchObject({ status: "completed", result: { structuredContent: { exitCode: 0 } } });
  });

  it("reports the job's own last change", async () => {
    // The server keeps lastUpdatedAt from running before the task's createdAt, for every adapter (see
    // packages/core/src/task-shape.ts); the adapter reports what AWS says.
    const finished = readFixture<{ jobs: Array<{ stoppedAt: number }> }>("describe-jobs-succeeded.json");
    const stoppedAt = new Date(finished.jobs[0]!.stoppedAt).toISOString();
    nock(batchOrigin).post("/v1/describejobs").times(2).reply(200, finished);
    const adapter = awsBatch({
      batchClient: testBatchClient(1),
      retry: fastRetry,
      describeBatchWindowMs: 1,
      watch: {},
    });
    const started = await adapter.tools[0]!.doStart({ jobId }, createTestContext());
    expect(started.snapshot?.updatedAt).toBe(stoppedAt);
    expect(started.ref).toEqual({ jobId });
    const read = await adapter.doGetStatus(started.ref, createTestContext());
    expect(read.updatedAt).toBe(stoppedAt);
    expect(read.result?.structuredContent?.stoppedAt).toBe(stoppedAt);
  });

  it("refuses an unknown job id as invalid input", async () => {
    nock(batchOrigin).post("/v1/describejobs").reply(200, { jobs: [] });
    const failure = watchTool().doStart({ jobId }, createTestContext());
    await expect(failure).rejects.toBeInstanceOf(InvalidToolInputError);
    await expect(failure).rejects.toThrow(/jobId: no AWS Batch job with this id is visible/);
  });

  it("answers a job outside the allowed queues exactly like a missing one", async () => {
    nock(batchOrigin).post("/v1/describejobs").reply(200, readFixture("describe-jobs-running.json"));
    const refused = await watchTool({ allowedQueues: ["etl-queue"] })
      .doStart({ jobId }, createTestContext())
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidToolInputError);
    expect((refused as Error).message).toMatch(/not allowed/);
    expect((refused as Error).message).not.toContain("render-queue");
  });

  it("accepts a job in an allowed queue given by name, though DescribeJobs reports the queue ARN", async () => {
    nock(batchOrigin).post("/v1/describejobs").reply(200, readFixture("describe-jobs-running.json"));
    const started = await watchTool({ allowedQueues: ["render-queue"] }).doStart({ jobId }, createTestContext());
    expect(started.ref).toEqual({ jobId });
  });

  it("can be renamed to avoid clashing with another adapter's tool", () => {
    expect(watchTool({ tool: "watch_batch_job" }).name).toBe("watch_batch_job");
  });
});
