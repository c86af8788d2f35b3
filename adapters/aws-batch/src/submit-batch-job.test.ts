import { OutcomeUnknownError, type UpstreamError } from "@jobtasks/core";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AwsBatchOptions } from "./aws-batch-options.js";
import { awsBatch } from "./aws-batch-adapter.js";
import { correlationTagKey } from "./submit-batch-job.js";
import {
  batchOrigin,
  blockRealNetwork,
  fastRetry,
  testBatchClient,
  throttledReply,
} from "./test-support/aws-test-clients.js";
import { readFixture } from "./test-support/fixtures.js";
import { createTestContext } from "@jobtasks/testkit";

interface SubmitBody {
  jobName: string;
  jobQueue: string;
  jobDefinition: string;
  parameters?: Record<string, string>;
  containerOverrides?: {
    command?: string[];
    environment?: { name: string; value: string }[];
    resourceRequirements?: unknown[];
  };
  arrayProperties?: { size: number };
  retryStrategy?: { attempts: number };
  timeout?: { attemptDurationSeconds: number };
  tags: Record<string, string>;
}

const renderTemplate = {
  tool: "render_frames",
  description: "Render frames of a scene",
  jobQueue: "render-queue",
  jobDefinition: "blender-render:3",
  parameters: {
    scene: { description: "Scene file", pattern: "[a-z0-9/_-]+\\.blend" },
    quality: { enum: ["draft", "final"], default: "draft" },
  },
  allowedEnvironment: ["FRAME_STEP"],
  array: { maxSize: 1000 },
  retryAttempts: 2,
  timeoutSeconds: 3600,
  tags: { team: "render" },
} satisfies NonNullable<AwsBatchOptions["templates"]>[number];

/**
 * A real BatchClient with the SDK's default retries (3 attempts): the adapter must not let them resend a
 * SubmitJob whose answer was lost.
 */
function adapterUnderTest(changes: Partial<AwsBatchOptions> = {}) {
  return awsBatch({
    batchClient: testBatchClient(),
    templates: [renderTemplate],
    retry: fastRetry,
    duplicateCheckDelayMs: 0,
    submitsPerSecond: 50,
    ...changes,
  });
}

function toolOf(adapter: ReturnType<typeof awsBatch>, name = "render_frames") {
  const tool = adapter.tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool;
}

/** Records every SubmitJob body that reaches the mock, whatever it answers. */
function recordSubmits(): SubmitBody[] {
  const bodies: SubmitBody[] = [];
  nock.emitter.on("no match", () => bodies.push({ jobName: "UNEXPECTED REQUEST" } as SubmitBody));
  return bodies;
}

const submitted = readFixture("submit-job.json");

/** A connection lost before any answer. (nock 14 needs an Error instance here; a plain object hangs.) */
const networkError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("submitting through a template tool", () => {
  let bodies: SubmitBody[];
  beforeEach(() => {
    blockRealNetwork();
    bodies = recordSubmits();
  });
  afterEach(() => {
    nock.cleanAll();
    nock.emitter.removeAllListeners("no match");
    nock.enableNetConnect();
  });
  const capture = (body: SubmitBody) => {
    bodies.push(body);
    return true;
  };

  it("sends POST /v1/submitjob with the template's fixed fields, the agent's allowed input and a correlation tag", async () => {
    nock(batchOrigin).post("/v1/submitjob", capture).reply(200, submitted);
    const tool = toolOf(adapterUnderTest());
    const input = tool.inputSchema.parse({
      parameters: { scene: "shots/intro.blend" },
      environment: { FRAME_STEP: "2" },
      arraySize: 10,
    });
    const started = await tool.doStart(input, createTestContext());

    expect(started.ref).toEqual({ jobId: "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f", submittedAt: expect.any(Number) });
    expect(JSON.stringify(started.ref).length).toBeLessThan(200);
    expect(started.snapshot).toMatchObject({ status: "working", rawStatus: "SUBMITTED" });
    expect(bodies).toHaveLength(1);
    const body = bodies[0] as SubmitBody;
    expect(body).toMatchObject({
      jobQueue: "render-queue",
      jobDefinition: "blender-render:3",
      parameters: { scene: "shots/intro.blend", quality: "draft" },
      containerOverrides: { environment: [{ name: "FRAME_STEP", value: "2" }] },
      arrayProperties: { size: 10 },
      retryStrategy: { attempts: 2 },
      timeout: { attemptDurationSeconds: 3600 },
      tags: { team: "render" },
    });
    const correlationId = body.tags[correlationTagKey] as string;
    expect(correlationId).toMatch(/^[0-9a-f]{24}$/);
    expect(body.jobName).toBe(`render_frames-${correlationId}`);
  });

  it("uses a new correlation id for every tool call", async () => {
    nock(batchOrigin).post("/v1/submitjob", capture).times(2).reply(200, submitted);
    const tool = toolOf(adapterUnderTest());
    const input = tool.inputSchema.parse({ parameters: { scene: "a.blend" } });
    await tool.doStart(input, createTestContext());
    await tool.doStart(input, createTestContext());
    expect(bodies[0]?.jobName).not.toBe(bodies[1]?.jobName);
  });

  it("retries a throttled SubmitJob with backoff: it was refused, so no lookup is needed", async () => {
    nock(batchOrigin)
      .post("/v1/submitjob", capture)
      .reply(...throttledReply())
      .post("/v1/submitjob", capture)
      .reply(200, submitted);
    const tool = toolOf(adapterUnderTest({ batchClient: testBatchClient(1) }));
    const started = await tool.doStart(
      tool.inputSchema.parse({ parameters: { scene: "a.blend" } }),
      createTestContext(),
    );
    expect(started.ref.jobId).toBe("8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f");
    expect(bodies).toHaveLength(2);
    expect(bodies[0]?.jobName).toBe(bodies[1]?.jobName);
  });

  it("after a lost answer finds the job by its correlation name instead of submitting a duplicate", async () => {
    nock(batchOrigin).post("/v1/submitjob", capture).replyWithError(networkError("ECONNRESET", "socket hang up"));
    const lookups: unknown[] = [];
    nock(batchOrigin)
      .post("/v1/listjobs", (body) => {
        lookups.push(body);
        return true;
      })
      .reply(200, () => {
        const list = readFixture<{ jobSummaryList: { jobName: string }[] }>("list-jobs-by-name.json");
        // The job AWS created carries the name the lost request asked for.
        (list.jobSummaryList[0] as { jobName: string }).jobName = (bodies[0] as SubmitBody).jobName;
        return list;
      });
    const context = createTestContext();
    const tool = toolOf(adapterUnderTest());
    const started = await tool.doStart(tool.inputSchema.parse({ parameters: { scene: "a.blend" } }), context);

    expect(started.ref.jobId).toBe("8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f");
    // One SubmitJob reached AWS although the client allows the SDK 3 attempts.
    expect(bodies).toHaveLength(1);
    expect(lookups).toEqual([
      { jobQueue: "render-queue", filters: [{ name: "JOB_NAME", values: [(bodies[0] as SubmitBody).jobName] }] },
    ]);
    expect(context.logEntries.map((entry) => entry.message)).toContainEqual(expect.stringContaining("answer was lost"));
  });

  it("resubmits with the SAME name when the lookup finds nothing, so a later lookup still finds either", async () => {
    nock(batchOrigin)
      .post("/v1/submitjob", capture)
      .reply(500, { __type: "ServerException", message: "internal error" }, { "x-amzn-errortype": "ServerException" })
      .post("/v1/listjobs")
      .reply(200, { jobSummaryList: [] })
      .post("/v1/submitjob", capture)
      .reply(200, submitted);
    const tool = toolOf(adapterUnderTest());
    const started = await tool.doStart(
      tool.inputSchema.parse({ parameters: { scene: "a.blend" } }),
      createTestContext(),
    );
    expect(started.ref.jobId).toBe("8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f");
    expect(bodies).toHaveLength(2);
    expect(bodies[1]?.jobName).toBe(bodies[0]?.jobName);
    expect(bodies[1]?.tags).toEqual(bodies[0]?.tags);
    expect(nock.isDone()).toBe(true);
  });

  it("fails retryably, without submitting more, when every attempt is lost and no job appears", async () => {
    nock(batchOrigin)
      .post("/v1/submitjob", capture)
      .times(fastRetry.maxAttempts)
      .replyWithError(networkError("ETIMEDOUT", "connect timed out"))
      .post("/v1/listjobs")
      .times(fastRetry.maxAttempts)
      .reply(200, { jobSummaryList: [] });
    const tool = toolOf(adapterUnderTest());
    const error = await tool
      .doStart(tool.inputSchema.parse({ parameters: { scene: "a.blend" } }), createTestContext())
      .catch((caught: unknown) => caught);
    // A job may still appear: the core's mark for "the upstream may have acted".
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as UpstreamError).isRetryable).toBe(true);
    expect((error as Error).message).toMatch(/no job named render_frames-[0-9a-f]{24} was found/);
    expect(bodies).toHaveLength(fastRetry.maxAttempts);
    expect(new Set(bodies.map((body) => body.jobName)).size).toBe(1);
  });

  it("looks the job up after a 2xx SubmitJob answer it cannot read, instead of reporting a failure", async () => {
    nock(batchOrigin).post("/v1/submitjob", capture).reply(200, "<html>proxy</html>", { "content-type": "text/html" });
    nock(batchOrigin)
      .post("/v1/listjobs")
      .reply(200, () => ({
        jobSummaryList: [{ jobId: "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f", jobName: (bodies[0] as SubmitBody).jobName }],
      }));
    const tool = toolOf(adapterUnderTest());
    const started = await tool.doStart(
      tool.inputSchema.parse({ parameters: { scene: "a.blend" } }),
      createTestContext(),
    );
    expect(started.ref.jobId).toBe("8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f");
    expect(bodies).toHaveLength(1);
    expect(nock.isDone()).toBe(true);
  });

  it("never resubmits after a 2xx it cannot read (AWS accepted the job): it keeps looking, then says so without inviting a retry", async () => {
    nock(batchOrigin)
      .post("/v1/submitjob", capture)
      .reply(200, '{"jobArn": "arn:aws:batch:us-east-1:1', { "content-type": "application/json" });
    const lookups = nock(batchOrigin)
      .post("/v1/listjobs")
      .times(fastRetry.maxAttempts)
      .reply(200, { jobSummaryList: [] });
    const tool = toolOf(adapterUnderTest());
    const error = await tool
      .doStart(tool.inputSchema.parse({ parameters: { scene: "a.blend" } }), createTestContext())
      .catch((caught: unknown) => caught);
    expect(bodies).toHaveLength(1);
    expect(lookups.isDone()).toBe(true);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as UpstreamError).isRetryable).toBe(false);
    expect((error as Error).message).toMatch(/accepted .*render_frames-[0-9a-f]{24}/);
  });

  it("does not retry or look up after a refused submit (ClientException)", async () => {
    nock(batchOrigin)
      .post("/v1/submitjob", capture)
      .reply(
        400,
        { __type: "ClientException", message: "Job queue render-queue does not exist" },
        { "x-amzn-errortype": "ClientException" },
      );
    const tool = toolOf(adapterUnderTest());
    const error = await tool
      .doStart(tool.inputSchema.parse({ parameters: { scene: "a.blend" } }), createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ isRetryable: false, httpStatus: 400 });
    // AWS refused the call: nothing was created.
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
    expect((error as Error).message).toContain("ClientException");
    expect(bodies).toHaveLength(1);
  });

  it("submits through the generic tool only to allow-listed queues and definitions", async () => {
    nock(batchOrigin).post("/v1/submitjob", capture).reply(200, submitted);
    const adapter = adapterUnderTest({
      genericSubmit: { allowedQueues: ["etl-queue"], allowedDefinitions: ["etl:12"], allowCommandOverride: true },
    });
    const tool = toolOf(adapter, "submit_batch_job");
    expect(tool.inputSchema.safeParse({ jobQueue: "prod-queue", jobDefinition: "etl:12" }).success).toBe(false);
    const input = tool.inputSchema.parse({
      jobQueue: "etl-queue",
      jobDefinition: "etl:12",
      jobName: "backfill",
      command: ["etl", "--day", "2026-11-02"],
    });
    await tool.doStart(input, createTestContext());
    expect(bodies[0]).toMatchObject({
      jobQueue: "etl-queue",
      jobDefinition: "etl:12",
      containerOverrides: { command: ["etl", "--day", "2026-11-02"] },
    });
    expect(bodies[0]?.jobName).toMatch(/^backfill-[0-9a-f]{24}$/);
  });
});
