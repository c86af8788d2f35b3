import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { awsBatch } from "./aws-batch-adapter.js";
import { cancelReasonFor } from "./cancel-batch-job.js";
import { mapBatchJobStatus } from "./map-batch-job-status.js";
import { batchOrigin, blockRealNetwork, fastRetry, testBatchClient, throttledReply } from "./test-support/aws-test-clients.js";
import { fixtureJob } from "./test-support/fixtures.js";
import { testContext } from "./test-support/test-context.js";

const jobId = "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f";
const expectedReason = "jobtasks: cancelled by alice@example.com via MCP tasks/cancel";

function adapterUnderTest(cancelStrategy: "auto" | "terminate" = "auto") {
  return awsBatch({ batchClient: testBatchClient(1), retry: fastRetry, describeBatchWindowMs: 1, cancelStrategy });
}

/** DescribeJobs answers with the running fixture in the given statuses, one per call, in order. */
function describeAs(...statuses: string[]) {
  const scope = nock(batchOrigin);
  for (const status of statuses) {
    scope.post("/v1/describejobs", { jobs: [jobId] }).reply(200, { jobs: [fixtureJob("describe-jobs-running.json", { status: status as never })] });
  }
}

/** Records which cancel calls reach AWS, with their bodies. */
function recordCancelCalls() {
  const calls: { path: string; body: unknown }[] = [];
  for (const path of ["/v1/canceljob", "/v1/terminatejob"]) {
    nock(batchOrigin)
      .post(path, (body) => {
        calls.push({ path, body });
        return true;
      })
      .optionally()
      .times(5)
      .reply(200, {});
  }
  return calls;
}

describe("doCancel", () => {
  beforeEach(blockRealNetwork);
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it.each(["SUBMITTED", "PENDING", "RUNNABLE"])("uses CancelJob for a %s job that has not started", async (status) => {
    describeAs(status, status);
    const calls = recordCancelCalls();
    await adapterUnderTest().doCancel?.({ jobId }, testContext());
    expect(calls).toEqual([{ path: "/v1/canceljob", body: { jobId, reason: expectedReason } }]);
  });

  it.each(["STARTING", "RUNNING"])("uses TerminateJob for a %s job (CancelJob would do nothing)", async (status) => {
    describeAs(status);
    const calls = recordCancelCalls();
    await adapterUnderTest().doCancel?.({ jobId }, testContext());
    expect(calls).toEqual([{ path: "/v1/terminatejob", body: { jobId, reason: expectedReason } }]);
  });

  it("terminates after a CancelJob that lost the race with the scheduler", async () => {
    describeAs("RUNNABLE", "STARTING");
    const calls = recordCancelCalls();
    await adapterUnderTest().doCancel?.({ jobId }, testContext());
    expect(calls.map((call) => call.path)).toEqual(["/v1/canceljob", "/v1/terminatejob"]);
  });

  it("terminates an array parent even while it is PENDING, since its children may be running", async () => {
    nock(batchOrigin)
      .post("/v1/describejobs")
      .reply(200, { jobs: [fixtureJob("describe-jobs-array-pending.json", { jobId })] });
    const calls = recordCancelCalls();
    await adapterUnderTest().doCancel?.({ jobId }, testContext());
    expect(calls.map((call) => call.path)).toEqual(["/v1/terminatejob"]);
  });

  it.each(["SUCCEEDED", "FAILED"])("sends nothing for a job that already %s", async (status) => {
    describeAs(status);
    const calls = recordCancelCalls();
    await adapterUnderTest().doCancel?.({ jobId }, testContext());
    expect(calls).toEqual([]);
  });

  it("with cancelStrategy terminate, sends TerminateJob alone without reading the job", async () => {
    const calls = recordCancelCalls();
    await adapterUnderTest("terminate").doCancel?.({ jobId }, testContext());
    expect(calls).toEqual([{ path: "/v1/terminatejob", body: { jobId, reason: expectedReason } }]);
  });

  it("retries a throttled TerminateJob", async () => {
    nock(batchOrigin).post("/v1/terminatejob").reply(...throttledReply()).post("/v1/terminatejob").reply(200, {});
    await adapterUnderTest("terminate").doCancel?.({ jobId }, testContext());
    expect(nock.isDone()).toBe(true);
  });

  it("sends a reason the status mapping recognises as a cancel, whoever the principal is", () => {
    for (const principal of ["alice@example.com", "", "weird\u0007name\nwith control characters"]) {
      const reason = cancelReasonFor(principal);
      expect(reason).not.toMatch(/[\u0000-\u001f]/);
      const job = fixtureJob("describe-jobs-running.json", { status: "FAILED", statusReason: reason, isCancelled: false });
      expect(mapBatchJobStatus(job).status).toBe("cancelled");
    }
  });

  it("stays working after a cancel until Batch shows the job stopped (cooperative cancel)", async () => {
    describeAs("RUNNING", "RUNNING");
    recordCancelCalls();
    const adapter = adapterUnderTest();
    await adapter.doCancel?.({ jobId }, testContext());
    expect((await adapter.doGetStatus({ jobId }, testContext())).status).toBe("working");
  });
});
