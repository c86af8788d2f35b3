import { OutcomeUnknownError, UpstreamError } from "@jobtasks/core";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { awsBatch } from "./aws-batch-adapter.js";
import {
  batchOrigin,
  blockRealNetwork,
  fastRetry,
  testBatchClient,
  throttledReply,
} from "./test-support/aws-test-clients.js";
import { createTestContext } from "@jobtasks/testkit";

const template = { tool: "render", description: "Render", jobQueue: "render-queue", jobDefinition: "blender:3" };
const jobId = "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f";

/** Counts SubmitJob bodies and ListJobs calls, whatever the mock answers. */
function counters() {
  const submitted: string[] = [];
  let lookups = 0;
  return {
    submitted,
    get lookups() {
      return lookups;
    },
    captureSubmit: (body: { jobName: string }) => {
      submitted.push(body.jobName);
      return true;
    },
    captureLookup: () => {
      lookups += 1;
      return true;
    },
  };
}

async function start() {
  const adapter = awsBatch({
    batchClient: testBatchClient(1),
    templates: [template],
    retry: fastRetry,
    duplicateCheckDelayMs: 0,
  });
  const tool = adapter.tools[0];
  if (!tool) throw new Error("no tool");
  return tool.doStart(tool.inputSchema.parse({}), createTestContext()).catch((caught: unknown) => caught);
}

const json = { "content-type": "application/json" };
const serviceUnavailable: [number, Record<string, string>, Record<string, string>] = [
  503,
  { __type: "ServiceUnavailableException", message: "try later" },
  { "x-amzn-errortype": "ServiceUnavailableException", ...json },
];

/** An error that tells the agent the job may exist and must not be submitted again, naming the job. */
function expectDoNotSubmitAgain(error: unknown, jobName: string | undefined) {
  expect(error).toBeInstanceOf(OutcomeUnknownError);
  expect((error as UpstreamError).isRetryable).toBe(false);
  expect((error as Error).message).toMatch(/do not submit again/);
  expect((error as Error).message).toContain(`job name ${jobName}`);
}

describe("SubmitJob never invites a duplicate", () => {
  beforeEach(blockRealNetwork);
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  // AWS answered 2xx, so the job was created; without its id the answer is as good as lost.
  it.each([
    ["an empty body", ""],
    ["an empty object", "{}"],
  ])("looks a 2xx answer with %s up by its correlation name, and finds the job", async (_case, body) => {
    const count = counters();
    nock(batchOrigin).post("/v1/submitjob", count.captureSubmit).reply(200, body, json);
    nock(batchOrigin)
      .post("/v1/listjobs", count.captureLookup)
      .reply(200, () => ({ jobSummaryList: [{ jobId, jobName: count.submitted[0] }] }));
    const started = await start();
    expect(started).toMatchObject({ ref: { jobId } });
    expect(count.submitted).toHaveLength(1);
  });

  it("says 'do not submit again' after a 2xx without a job id that no lookup finds", async () => {
    const count = counters();
    nock(batchOrigin).post("/v1/submitjob", count.captureSubmit).reply(200, "{}", json);
    nock(batchOrigin).post("/v1/listjobs", count.captureLookup).times(20).reply(200, { jobSummaryList: [] });
    const error = await start();
    expect(count.submitted).toHaveLength(1);
    expectDoNotSubmitAgain(error, count.submitted[0]);
  });

  it("after an unreadable 2xx, a throttled lookup still says the job exists and not to submit again", async () => {
    const count = counters();
    nock(batchOrigin)
      .post("/v1/submitjob", count.captureSubmit)
      .reply(200, "<html>proxy</html>", { "content-type": "text/html" });
    nock(batchOrigin)
      .post("/v1/listjobs", count.captureLookup)
      .times(50)
      .reply(...throttledReply());
    const error = await start();
    expect(count.submitted).toHaveLength(1);
    expectDoNotSubmitAgain(error, count.submitted[0]);
    expect((error as Error).message).toMatch(/accepted/);
    expect((error as Error).cause).toBeInstanceOf(UpstreamError);
  });

  it("after a lost answer (503), a failing lookup says the job may exist and not to submit again", async () => {
    const count = counters();
    nock(batchOrigin)
      .post("/v1/submitjob", count.captureSubmit)
      .reply(...serviceUnavailable);
    nock(batchOrigin)
      .post("/v1/listjobs", count.captureLookup)
      .times(50)
      .reply(...serviceUnavailable);
    const error = await start();
    expect(count.submitted).toHaveLength(1);
    expectDoNotSubmitAgain(error, count.submitted[0]);
    expect((error as Error).message).toMatch(/may exist/);
  });

  it("after a lost answer, a lookup refused for good (AccessDenied) says the same", async () => {
    const count = counters();
    nock(batchOrigin)
      .post("/v1/submitjob", count.captureSubmit)
      .reply(...serviceUnavailable);
    nock(batchOrigin)
      .post("/v1/listjobs", count.captureLookup)
      .reply(
        403,
        { __type: "AccessDeniedException", message: "not allowed" },
        { "x-amzn-errortype": "AccessDeniedException", ...json },
      );
    const error = await start();
    expect(count.lookups).toBe(1);
    expectDoNotSubmitAgain(error, count.submitted[0]);
  });

  it("keeps the SDK's hint about a hidden raw response out of messages", async () => {
    nock(batchOrigin).post("/v1/submitjob").reply(200, "<html>proxy</html>", { "content-type": "text/html" });
    nock(batchOrigin).post("/v1/listjobs").times(50).reply(503, "<html>down</html>", { "content-type": "text/html" });
    const error = await start();
    expect(
      JSON.stringify(String((error as Error).message) + String(((error as Error).cause as Error)?.message)),
    ).not.toMatch(/\$response|hidden field/);
  });
});
