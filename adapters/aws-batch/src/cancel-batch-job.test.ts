import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { awsBatch } from "./aws-batch-adapter.js";
import { cancelReason } from "./cancel-batch-job.js";
import { mapAwsBatchStatus } from "./map-aws-batch-status.js";
import {
  batchOrigin,
  blockRealNetwork,
  fastRetry,
  testBatchClient,
  throttledReply,
} from "./test-support/aws-test-clients.js";
import { fixtureJob } from "./test-support/fixtures.js";
import { createTestContext } from "@jobtasks/testkit";

const jobId = "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f";

function adapterUnderTest(cancelStrategy: "auto" | "terminate" = "auto") {
  return awsBatch({ batchClient: testBatchClient(1), retry: fastRetry, describeBatchWindowMs: 1, cancelStrategy });
}

/**
 * A fake Batch holding one job, with the documented semantics of both calls: CancelJob "succeeds" without
 * effect once the scheduler has placed the job, TerminateJob stops a job in any state. `placed` is the
 * scheduler's own view, which DescribeJobs shows only later: the race a read-then-choose cancel loses.
 */
function fakeBatch(initial: { status: string; placed: boolean }) {
  const job = { status: initial.status, placed: initial.placed, statusReason: undefined as string | undefined };
  const calls: { path: string; body: unknown }[] = [];
  const stop = (reason: string) => {
    job.status = "FAILED";
    job.statusReason = reason;
  };
  nock(batchOrigin)
    .persist()
    .post(/\/v1\/(describejobs|canceljob|terminatejob)/)
    .reply((path, body) => {
      calls.push({ path, body });
      const { reason } = body as { reason?: string };
      if (path === "/v1/describejobs") {
        const described = fixtureJob("describe-jobs-running.json", {
          status: job.status as never,
          statusReason: job.statusReason,
        });
        return [200, { jobs: [described] }];
      }
      const active = job.status !== "SUCCEEDED" && job.status !== "FAILED";
      if (path === "/v1/terminatejob" && active) stop(reason ?? "");
      if (path === "/v1/canceljob" && active && !job.placed) stop(reason ?? "");
      return [200, {}];
    });
  return { job, calls };
}

describe("doCancel", () => {
  beforeEach(blockRealNetwork);
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it("stops a job the scheduler placed while DescribeJobs still shows it RUNNABLE (the race CancelJob loses)", async () => {
    const batch = fakeBatch({ status: "RUNNABLE", placed: true });
    const adapter = adapterUnderTest();
    await adapter.doCancel?.({ jobId }, createTestContext());
    const snapshot = await adapter.doGetStatus({ jobId }, createTestContext());
    expect(snapshot.status).toBe("cancelled");
    expect(batch.calls.filter((call) => call.path !== "/v1/describejobs")).toEqual([
      { path: "/v1/terminatejob", body: { jobId, reason: cancelReason } },
    ]);
  });

  it.each(["SUBMITTED", "PENDING", "RUNNABLE", "STARTING", "RUNNING", "SOME_FUTURE_STATE"])(
    "sends one TerminateJob, without reading first, for a %s job",
    async (status) => {
      const batch = fakeBatch({ status, placed: false });
      await adapterUnderTest().doCancel?.({ jobId }, createTestContext());
      expect(batch.calls).toEqual([{ path: "/v1/terminatejob", body: { jobId, reason: cancelReason } }]);
      expect(batch.job.status).toBe("FAILED");
    },
  );

  it("terminates an array parent (TerminateJob reaches its children too)", async () => {
    const batch = fakeBatch({ status: "PENDING", placed: false });
    await adapterUnderTest().doCancel?.({ jobId }, createTestContext());
    expect(batch.calls.map((call) => call.path)).toEqual(["/v1/terminatejob"]);
  });

  it("behaves the same with cancelStrategy terminate, kept for existing configs", async () => {
    const batch = fakeBatch({ status: "RUNNABLE", placed: false });
    await adapterUnderTest("terminate").doCancel?.({ jobId }, createTestContext());
    expect(batch.calls).toEqual([{ path: "/v1/terminatejob", body: { jobId, reason: cancelReason } }]);
  });

  it("retries a throttled TerminateJob", async () => {
    nock(batchOrigin)
      .post("/v1/terminatejob")
      .reply(...throttledReply())
      .post("/v1/terminatejob")
      .reply(200, {});
    await adapterUnderTest().doCancel?.({ jobId }, createTestContext());
    expect(nock.isDone()).toBe(true);
  });

  it("sends the same reason whoever cancels, so one caller's name never reaches another watching the job", async () => {
    const batch = fakeBatch({ status: "RUNNING", placed: true });
    const alice = createTestContext({ principal: "alice@example.com" });
    await adapterUnderTest().doCancel?.({ jobId }, alice);
    await adapterUnderTest().doCancel?.({ jobId }, createTestContext({ principal: "bob@example.com" }));
    const reasons = batch.calls.map((call) => (call.body as { reason: string }).reason);
    expect(reasons).toEqual([cancelReason, cancelReason]);
    expect(cancelReason).toBe("jobtasks: cancelled via MCP tasks/cancel");
    const watchedByBob = await adapterUnderTest().doGetStatus(
      { jobId },
      createTestContext({ principal: "bob@example.com" }),
    );
    expect(watchedByBob.message).not.toContain("alice");
    // Who cancelled stays in the server's own log.
    expect(JSON.stringify(alice.logEntries)).toContain("alice@example.com");
  });

  it("sends a reason the status mapping recognises as a cancel", () => {
    const job = fixtureJob("describe-jobs-running.json", {
      status: "FAILED",
      statusReason: cancelReason,
      isCancelled: false,
    });
    expect(mapAwsBatchStatus(job).status).toBe("cancelled");
  });

  it("stays working after a cancel until Batch shows the job stopped (cooperative cancel)", async () => {
    nock(batchOrigin)
      .post("/v1/terminatejob")
      .reply(200, {})
      .post("/v1/describejobs")
      .reply(200, { jobs: [fixtureJob("describe-jobs-running.json")] });
    const adapter = adapterUnderTest();
    await adapter.doCancel?.({ jobId }, createTestContext());
    expect((await adapter.doGetStatus({ jobId }, createTestContext())).status).toBe("working");
  });
});
