import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { awsBatch } from "./aws-batch-adapter.js";
import { batchOrigin, blockRealNetwork, fastRetry, testBatchClient } from "./test-support/aws-test-clients.js";
import { readFixture } from "./test-support/fixtures.js";
import { createTestContext } from "@jobtasks/testkit";

/**
 * A client that leaves while SubmitJob is in flight: the request may already have created the job, and
 * nobody will ever hold its task id. The submit is let finish, and the job it created is terminated.
 */

const submitted = readFixture<{ jobId: string; jobName: string }>("submit-job.json");

function renderTool(submitsPerSecond = 50) {
  const adapter = awsBatch({
    batchClient: testBatchClient(1),
    templates: [
      {
        tool: "render_frames",
        description: "Render frames",
        jobQueue: "render-queue",
        jobDefinition: "blender-render:3",
      },
    ],
    retry: fastRetry,
    duplicateCheckDelayMs: 0,
    submitsPerSecond,
  });
  return adapter.tools.find((tool) => tool.name === "render_frames")!;
}

/** SubmitJob whose answer waits for `release`; `received` resolves once the request reached "AWS". */
function heldSubmit(answer: () => [number, Record<string, unknown>]) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let arrived!: () => void;
  const received = new Promise<void>((resolve) => (arrived = resolve));
  nock(batchOrigin)
    .post("/v1/submitjob")
    .reply((_uri, _body, callback) => {
      arrived();
      void released.then(() => callback(null, answer()));
    });
  return { received, release };
}

beforeEach(() => blockRealNetwork());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  nock.enableNetConnect();
  expect(pending, "every arranged AWS call was made").toEqual([]);
});

describe("a client that leaves while SubmitJob is in flight", () => {
  it("lets the submit finish, terminates the job it created, logs it, and ends the start aborted", async () => {
    const submit = heldSubmit(() => [200, submitted]);
    const terminations: unknown[] = [];
    nock(batchOrigin)
      .post("/v1/terminatejob", (body) => (terminations.push(body), true))
      .reply(200, {});
    const tool = renderTool();
    const client = new AbortController();
    const context = { ...createTestContext(), signal: client.signal };
    const starting = tool.doStart(tool.inputSchema.parse({}), context);
    await submit.received;
    client.abort(new Error("the client went away"));
    submit.release();

    await expect(starting).rejects.toThrow("the client went away");
    expect(terminations).toEqual([
      { jobId: submitted.jobId, reason: "jobtasks: cancelled, the client left before the task was handed out" },
    ]);
    const line = context.logEntries.find((entry) =>
      entry.message.startsWith("the client left while SubmitJob was in flight; terminated the job it created"),
    );
    expect(JSON.stringify(line)).toContain(submitted.jobId);
  });

  it("says in the log when the job it created could not be terminated", async () => {
    const submit = heldSubmit(() => [200, submitted]);
    nock(batchOrigin)
      .post("/v1/terminatejob")
      .reply(400, { __type: "ClientException", message: "not allowed" }, { "x-amzn-errortype": "ClientException" });
    const tool = renderTool();
    const client = new AbortController();
    const context = { ...createTestContext(), signal: client.signal };
    const starting = tool.doStart(tool.inputSchema.parse({}), context);
    await submit.received;
    client.abort(new Error("the client went away"));
    submit.release();

    await expect(starting).rejects.toThrow("the client went away");
    const line = context.logEntries.find((entry) =>
      entry.message.startsWith(
        "the client left while SubmitJob was in flight; the job it created could not be terminated",
      ),
    );
    expect(JSON.stringify(line)).toContain(submitted.jobId);
  });

  it("sends nothing when the client left before SubmitJob was sent", async () => {
    // One submit a second: the second call waits for its slot, and its client leaves meanwhile.
    nock(batchOrigin).post("/v1/submitjob").reply(200, submitted);
    const tool = renderTool(1);
    await tool.doStart(tool.inputSchema.parse({}), createTestContext());
    const client = new AbortController();
    const waiting = tool.doStart(tool.inputSchema.parse({}), { ...createTestContext(), signal: client.signal });
    client.abort(new Error("the client went away"));
    await expect(waiting).rejects.toThrow("the client went away");
  });
});
