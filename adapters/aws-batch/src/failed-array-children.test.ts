import type { JobDetail } from "@aws-sdk/client-batch";
import type { JobSnapshot } from "@jobtasks/core";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { awsBatch } from "./aws-batch-adapter.js";
import { batchJobResultSchema } from "./batch-job-result.js";
import { buildJobSnapshot } from "./build-job-snapshot.js";
import { batchOrigin, blockRealNetwork, fastRetry, testBatchClient } from "./test-support/aws-test-clients.js";
import { fixtureJob } from "./test-support/fixtures.js";
import { createTestContext } from "@jobtasks/testkit";

/** A failed array parent: its result names the children that failed, read with one bounded ListJobs. */

const parentId = "4d5e6f70-3333-4333-8333-333333333333";

function failedParent(failed: number, size = 10): JobDetail {
  return fixtureJob("describe-jobs-array-pending.json", {
    status: "FAILED",
    statusReason: "Array Child Job failed",
    startedAt: 1795000000000,
    stoppedAt: 1795000004000,
    arrayProperties: { size, statusSummary: { SUCCEEDED: size - failed, FAILED: failed } },
  });
}

function describeParent(job: JobDetail): void {
  nock(batchOrigin)
    .post("/v1/describejobs")
    .reply(200, { jobs: [job] });
}

const textOf = (snapshot: JobSnapshot): string =>
  (snapshot.result?.content[0] as { text: string } | undefined)?.text ?? "";

function adapterUnderTest() {
  return awsBatch({ batchClient: testBatchClient(1), retry: fastRetry, describeBatchWindowMs: 1 });
}

describe("the result of a failed array job", () => {
  beforeEach(blockRealNetwork);
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    nock.enableNetConnect();
    expect(pending, "every arranged AWS call was made").toEqual([]);
  });

  it("asks ListJobs once for the failed children, and names them by index with their exit codes", async () => {
    describeParent(failedParent(2));
    const asked: unknown[] = [];
    nock(batchOrigin)
      .post("/v1/listjobs", (body) => (asked.push(body), true))
      .reply(200, {
        jobSummaryList: [
          {
            jobId: `${parentId}:7`,
            jobName: "render",
            status: "FAILED",
            arrayProperties: { index: 7 },
            container: { exitCode: 137, reason: "OutOfMemoryError" },
          },
          // An entry without arrayProperties still names its index in its id.
          {
            jobId: `${parentId}:3`,
            jobName: "render",
            status: "FAILED",
            statusReason: "Essential container in task exited",
            container: { exitCode: 1 },
          },
        ],
      });
    const snapshot = await adapterUnderTest().doGetStatus({ jobId: parentId }, createTestContext());
    expect(asked).toEqual([{ arrayJobId: parentId, jobStatus: "FAILED", maxResults: 100 }]);
    expect(snapshot.status).toBe("completed");
    expect(textOf(snapshot)).toContain("Failed children: 3 (exit code 1), 7 (exit code 137: OutOfMemoryError).");
    const structured = batchJobResultSchema.parse(snapshot.result?.structuredContent);
    expect(structured.array?.failedChildren).toEqual([
      { index: 3, jobId: `${parentId}:3`, exitCode: 1, statusReason: "Essential container in task exited" },
      { index: 7, jobId: `${parentId}:7`, exitCode: 137, containerReason: "OutOfMemoryError" },
    ]);
  });

  it("still completes the task when the children cannot be read, and says so", async () => {
    describeParent(failedParent(2));
    nock(batchOrigin)
      .post("/v1/listjobs")
      .reply(
        400,
        { __type: "ClientException", message: "not authorized to list jobs" },
        { "x-amzn-errortype": "ClientException" },
      );
    const snapshot = await adapterUnderTest().doGetStatus({ jobId: parentId }, createTestContext());
    expect(snapshot).toMatchObject({ status: "completed", result: { isError: true } });
    expect(textOf(snapshot)).toContain("Array job of 10: 8 succeeded, 2 failed.");
    expect(textOf(snapshot)).toMatch(
      /The failed children could not be named: their list could not be read \(.*ClientException.*\)\./,
    );
    const structured = batchJobResultSchema.parse(snapshot.result?.structuredContent);
    expect(structured.array).toMatchObject({
      size: 10,
      failed: 2,
      failedChildrenNote: expect.stringContaining("could not be read"),
    });
    expect(structured.array).not.toHaveProperty("failedChildren");
  });

  // ListJobs is sent once per status read now (the server's reader retries the read); the adapter's own
  // retry budget this test once exhausted is gone, and the give-up counts from the array's stop instead.
  it("gives up on the children when ListJobs fails long after the array stopped, without failing the read", async () => {
    describeParent(failedParent(1));
    nock(batchOrigin).post("/v1/listjobs").reply(503, { __type: "ServiceUnavailable", message: "try later" });
    const snapshot = await adapterUnderTest().doGetStatus({ jobId: parentId }, createTestContext());
    expect(snapshot.status).toBe("completed");
    expect(textOf(snapshot)).toContain("The failed children could not be named");
  });

  it("fails the status read, retryable, when ListJobs fails soon after the array stopped, so no note is frozen into the result", async () => {
    describeParent({ ...failedParent(1), stoppedAt: Date.now() - 60_000 });
    nock(batchOrigin).post("/v1/listjobs").reply(503, { __type: "ServiceUnavailable", message: "try later" });
    const error = await adapterUnderTest()
      .doGetStatus({ jobId: parentId }, createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ isRetryable: true, httpStatus: 503 });
  });

  it("reads no children for an array that succeeded, or for a single job", async () => {
    describeParent(
      fixtureJob("describe-jobs-array-pending.json", {
        status: "SUCCEEDED",
        arrayProperties: { size: 4, statusSummary: { SUCCEEDED: 4 } },
      }),
    );
    const succeeded = await adapterUnderTest().doGetStatus({ jobId: parentId }, createTestContext());
    const single = fixtureJob("describe-jobs-failed.json");
    describeParent(single);
    const failed = await adapterUnderTest().doGetStatus({ jobId: single.jobId! }, createTestContext());
    // No ListJobs was arranged: a call would have failed on the blocked network and shown in the text.
    for (const snapshot of [succeeded, failed]) {
      expect(snapshot.status).toBe("completed");
      expect(textOf(snapshot)).not.toContain("children");
    }
  });

  it("says 'the array ran', not 'Last attempt', for a parent that had no attempts", () => {
    const snapshot = buildJobSnapshot(failedParent(1), undefined, {
      children: [{ index: 0, jobId: `${parentId}:0`, exitCode: 2 }],
      more: 0,
    });
    expect(textOf(snapshot)).toMatch(/failed: Array Child Job failed\. The array ran 4s\.\n/);
    expect(textOf(snapshot)).not.toContain("Last attempt");
  });
});
