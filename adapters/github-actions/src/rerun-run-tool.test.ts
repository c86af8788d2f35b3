import { InvalidToolInputError, OutcomeUnknownError } from "@jobtasks/core";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createTestAdapter,
  createTestContext,
  fixture,
  github,
  nock,
  runPath,
  runRef,
  workflowRun,
} from "./test-support/github-fixtures.js";

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending, "every arranged GitHub call was made").toEqual([]);
});

function rerunTool(adapter = createTestAdapter()) {
  return adapter.tools.find((tool) => tool.name === "rerun_run")!;
}

describe("rerun_run", () => {
  it("re-runs the failed jobs as a new task bound to the new attempt, once that attempt is visible", async () => {
    let body: any;
    github()
      .get(runPath)
      .reply(200, workflowRun({ status: "completed", conclusion: "failure", run_attempt: 1 }));
    github()
      .post(`${runPath}/rerun-failed-jobs`, (sent) => ((body = sent), true))
      .reply(201, {});
    github().get(`${runPath}/attempts/2`).reply(404, { message: "Not Found" });
    github()
      .get(`${runPath}/attempts/2`)
      .reply(200, workflowRun({ status: "queued", run_attempt: 2 }));
    const tool = rerunTool();
    const started = await tool.doStart(
      tool.inputSchema.parse({ runId: "9182736455", failedJobsOnly: true }),
      createTestContext(),
    );
    expect(started.ref).toEqual({ ...runRef, attempt: 2 });
    expect(body).toEqual({ enable_debug_logging: false });
  });

  it("re-runs every job by default", async () => {
    github()
      .get(runPath)
      .reply(200, workflowRun({ status: "completed", conclusion: "success", run_attempt: 3 }));
    github().post(`${runPath}/rerun`).reply(201, {});
    github()
      .get(`${runPath}/attempts/4`)
      .reply(200, workflowRun({ status: "queued", run_attempt: 4 }));
    const tool = rerunTool();
    const started = await tool.doStart(tool.inputSchema.parse({ runId: 9182736455 }), createTestContext());
    expect(started.ref.attempt).toBe(4);
  });

  it.each([
    ["a lasting server error", 502, { message: "Server Error" }, {}],
    [
      "a rate limit",
      403,
      { message: "API rate limit exceeded" },
      { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600) },
    ],
    ["a refusal", 403, { message: "Resource not accessible by integration" }, {}],
  ])(
    "never answers 'try again' after GitHub accepted the re-run: %s on the read-back names the attempt to watch",
    async (_label, status, body, headers) => {
      github()
        .get(runPath)
        .reply(200, workflowRun({ status: "completed", conclusion: "failure", run_attempt: 1 }));
      github().post(`${runPath}/rerun`).reply(201, {});
      github().get(`${runPath}/attempts/2`).times(100).optionally().reply(status, body, headers);
      const tool = rerunTool(createTestAdapter({ requestRetries: 0, maxRateLimitWaitMs: 0, watchCommitTimeoutMs: 50 }));
      const error = await tool
        .doStart(tool.inputSchema.parse({ runId: 9182736455 }), createTestContext())
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      expect(error).toMatchObject({ isRetryable: false, isThrottled: false });
      expect((error as Error).message).toMatch(/watch_run \(runId 9182736455, attempt 2\).*not re-run/);
    },
  );

  it("finds the new attempt when the re-run POST got a server error that may have re-run it anyway", async () => {
    github()
      .get(runPath)
      .reply(200, workflowRun({ status: "completed", conclusion: "failure", run_attempt: 1 }));
    const rerun = github().post(`${runPath}/rerun`).reply(502, { message: "Server Error" });
    github()
      .get(`${runPath}/attempts/2`)
      .reply(200, workflowRun({ status: "queued", run_attempt: 2 }));
    const tool = rerunTool();
    const started = await tool.doStart(tool.inputSchema.parse({ runId: 9182736455 }), createTestContext());
    expect(started.ref).toEqual({ ...runRef, attempt: 2 });
    expect(rerun.isDone()).toBe(true);
  });

  it("says the re-run may have started, without 'try again', when a POST answered 5xx and no attempt appears", async () => {
    github()
      .get(runPath)
      .reply(200, workflowRun({ status: "completed", conclusion: "failure", run_attempt: 1 }));
    github().post(`${runPath}/rerun`).reply(502, { message: "Server Error" });
    github().get(`${runPath}/attempts/2`).times(100).optionally().reply(404, { message: "Not Found" });
    const tool = rerunTool(createTestAdapter({ watchCommitTimeoutMs: 50 }));
    const error = await tool
      .doStart(tool.inputSchema.parse({ runId: 9182736455 }), createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error).toMatchObject({ isRetryable: false });
    expect((error as Error).message).toMatch(/may have.*watch_run \(runId 9182736455, attempt 2\)/);
  });

  it("keeps the task of the earlier attempt finished while the re-run works (attempt pinning)", async () => {
    const adapter = createTestAdapter();
    // GitHub now shows the run in progress again (attempt 2), but attempt 1 stays what it was.
    github()
      .get(`${runPath}/attempts/1`)
      .reply(200, workflowRun({ status: "completed", conclusion: "failure", run_attempt: 1 }));
    github().get(`${runPath}/attempts/1/jobs`).query(true).reply(200, { total_count: 0, jobs: [] });
    github().get(`${runPath}/artifacts`).query(true).reply(200, fixture("artifacts.json"));
    github()
      .get(`${runPath}/attempts/2`)
      .reply(200, workflowRun({ status: "queued", run_attempt: 2 }));

    const earlier = await adapter.doGetStatus(runRef, createTestContext());
    const later = await adapter.doGetStatus({ ...runRef, attempt: 2 }, createTestContext());
    expect(earlier).toMatchObject({
      status: "completed",
      result: { isError: true, structuredContent: { attempt: 1 } },
    });
    expect(later).toMatchObject({ status: "working", message: "queued" });
  });

  it("refuses to re-run a run that has not finished", async () => {
    github()
      .get(runPath)
      .reply(200, workflowRun({ status: "in_progress" }));
    const tool = rerunTool();
    const error = await tool
      .doStart(tool.inputSchema.parse({ runId: 9182736455 }), createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidToolInputError);
    expect(error).toMatchObject({ field: "runId" });
  });

  it("refuses a repository outside the configured ones, before calling GitHub", async () => {
    const tool = rerunTool();
    await expect(
      tool.doStart(tool.inputSchema.parse({ owner: "someone", repo: "else", runId: 1 }), createTestContext()),
    ).rejects.toMatchObject({ field: "repo" });
  });
});
