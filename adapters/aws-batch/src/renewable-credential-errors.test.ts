import { UpstreamError } from "@jobtasks/core";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { awsBatch } from "./aws-batch-adapter.js";
import { batchOrigin, blockRealNetwork, fastRetry, testBatchClient } from "./test-support/aws-test-clients.js";
import { createTestContext } from "@jobtasks/testkit";

const jobId = "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f";
const template = { tool: "render", description: "Render", jobQueue: "render-queue", jobDefinition: "blender:3" };

function refusal(code: string, message: string): [number, Record<string, string>, Record<string, string>] {
  return [403, { __type: code, message }, { "x-amzn-errortype": code, "content-type": "application/json" }];
}

// Expired temporary credentials and a drifted clock pass without anyone changing the configuration: a
// status read must keep its task working (the server's outage budget still bounds the wait), and a submit
// AWS refused created nothing, so it is not a lost answer that needs a lookup.
const renewable: [string, string][] = [
  ["ExpiredTokenException", "The security token included in the request is expired"],
  ["InvalidSignatureException", "Signature expired: 20261129T101010Z is now earlier than 20261129T102010Z"],
  ["SignatureDoesNotMatch", "Signature not yet current: clock skew"],
  ["RequestExpired", "Request has expired."],
];

describe("credentials that expire, a clock that drifts", () => {
  beforeEach(blockRealNetwork);
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it.each(renewable)(
    "keeps a status read refused with %s retryable, with one DescribeJobs call per read",
    async (code, message) => {
      let calls = 0;
      nock(batchOrigin)
        .post("/v1/describejobs", () => (calls += 1) > 0)
        .times(20)
        .reply(...refusal(code, message));
      const adapter = awsBatch({ batchClient: testBatchClient(1), retry: fastRetry, describeBatchWindowMs: 5 });
      const reads = await Promise.allSettled(
        [jobId, "1f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f"].map((id) =>
          adapter.doGetStatus({ jobId: id }, createTestContext()),
        ),
      );
      for (const read of reads) {
        const error = (read as PromiseRejectedResult).reason as UpstreamError;
        expect(error).toBeInstanceOf(UpstreamError);
        expect(error.isRetryable).toBe(true);
        expect(error.message).toContain(code);
      }
      // Not caused by an id: the batch is not split into one call per id.
      expect(calls).toBeLessThanOrEqual(fastRetry.maxAttempts);
    },
  );

  it.each(renewable)("refuses a submit with %s as retryable without looking for a duplicate", async (code, message) => {
    const lookups = nock(batchOrigin).post("/v1/listjobs").reply(200, { jobSummaryList: [] });
    nock(batchOrigin)
      .post("/v1/submitjob")
      .reply(...refusal(code, message));
    const adapter = awsBatch({
      batchClient: testBatchClient(1),
      templates: [template],
      retry: fastRetry,
      duplicateCheckDelayMs: 0,
    });
    const tool = adapter.tools[0];
    const error = await tool
      ?.doStart(tool.inputSchema.parse({}), createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ isRetryable: true });
    expect((error as Error).message).toContain(code);
    expect((error as Error).message).not.toMatch(/may exist|do not submit again/);
    expect(lookups.isDone()).toBe(false);
  });

  it("keeps a wrong secret key (a signature that does not match) a definite refusal", async () => {
    nock(batchOrigin)
      .post("/v1/describejobs")
      .reply(
        ...refusal(
          "InvalidSignatureException",
          "The request signature we calculated does not match the signature you provided.",
        ),
      );
    const adapter = awsBatch({ batchClient: testBatchClient(1), retry: fastRetry, describeBatchWindowMs: 1 });
    const error = await adapter.doGetStatus({ jobId }, createTestContext()).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ isRetryable: false });
  });
});
