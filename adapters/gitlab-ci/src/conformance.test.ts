import { runAdapterConformance } from "@jobtasks/testkit";
import { expect, it } from "vitest";
import type { PipelineRef } from "./pipeline-ref.js";
import {
  at,
  createMockGitlab,
  createTestAdapter,
  fixture,
  fixtureText,
  json,
  pipeline,
  project,
  projectPath,
  recordPost,
  testToken,
  type MockGitlab,
} from "./test-support/mock-gitlab.js";

// Each test gets a fresh MockAgent (createAdapter runs before every arrange*); ids still differ per
// arrangement, for the suite's sweep that arranges every state against one adapter.
let mock: MockGitlab = createMockGitlab();
let nextPipelineId = 1_284_800;
const startedPipelineId = 1_284_700;

const workingStatuses = new Set([
  "created",
  "waiting_for_resource",
  "preparing",
  "waiting_for_callback",
  "pending",
  "running",
  "scheduled",
  "canceling",
  "hibernating",
]);

function arrangePipeline(status: string): PipelineRef {
  nextPipelineId += 1;
  const pipelineId = nextPipelineId;
  const path = `${projectPath}/pipelines/${pipelineId}`;
  const finished = ["success", "failed", "canceled", "skipped"].includes(status);
  mock.gitlab.intercept({ path: at(path), method: "GET" }).reply(
    200,
    pipeline({
      id: pipelineId,
      status,
      ...(finished ? { finished_at: "2026-11-30T09:17:02.000Z", duration: 299 } : {}),
    }),
    json,
  );
  const jobs =
    status === "manual" ? "jobs-manual.json" : status === "failed" ? "jobs-failed.json" : "jobs-running.json";
  mock.gitlab.intercept({ path: at(`${path}/jobs`), method: "GET" }).reply(200, fixture(jobs), json);
  if (workingStatuses.has(status)) return { project, pipelineId };
  if (status === "manual") {
    const deployments = fixture<Array<Record<string, any>>>("deployments-blocked.json");
    deployments[0]!.deployable.pipeline.id = pipelineId;
    mock.gitlab
      .intercept({
        path: at(`${projectPath}/deployments`, (query) => query.get("status") === "blocked"),
        method: "GET",
      })
      .reply(200, deployments, json);
  }
  if (status === "failed") {
    mock.gitlab
      .intercept({ path: at(`${projectPath}/jobs/7710003/trace`), method: "GET" })
      .reply(200, fixtureText("trace-rspec-failed.txt"))
      .persist();
    mock.gitlab
      .intercept({ path: at(`${projectPath}/jobs/7710002/trace`), method: "GET" })
      .reply(200, "$ npm run lint\n3 problems\n")
      .persist();
  }
  return { project, pipelineId };
}

const played: unknown[] = [];
const reviews: unknown[] = [];
const cancels: unknown[] = [];

runAdapterConformance<PipelineRef>({
  name: "gitlab-ci",
  secrets: [testToken],
  createAdapter() {
    mock = createMockGitlab();
    // The start scenario: create_pipeline's POST, then the read that proves the pipeline readable.
    mock.gitlab
      .intercept({ path: at(`${projectPath}/pipeline`), method: "POST" })
      .reply(201, pipeline({ id: startedPipelineId, status: "created" }), json);
    mock.gitlab
      .intercept({ path: at(`${projectPath}/pipelines/${startedPipelineId}`), method: "GET" })
      .reply(200, pipeline({ id: startedPipelineId, status: "pending" }), json)
      .persist();
    mock.gitlab
      .intercept({ path: at(`${projectPath}/pipelines/${startedPipelineId}/jobs`), method: "GET" })
      .reply(200, fixture("jobs-running.json"), json)
      .persist();
    return createTestAdapter(mock);
  },
  async cleanup() {
    await mock.agent.close();
  },
  statuses: [
    { rawStatus: "created", expected: "working" },
    { rawStatus: "waiting_for_resource", expected: "working" },
    { rawStatus: "preparing", expected: "working" },
    { rawStatus: "waiting_for_callback", expected: "working" },
    { rawStatus: "pending", expected: "working" },
    { rawStatus: "running", expected: "working" },
    { rawStatus: "scheduled", expected: "working" },
    { rawStatus: "canceling", expected: "working" },
    { rawStatus: "manual", expected: "input_required" },
    { rawStatus: "success", expected: "completed", isError: false },
    { rawStatus: "skipped", expected: "completed", isError: false },
    { rawStatus: "failed", expected: "completed", isError: true },
    { rawStatus: "canceled", expected: "cancelled" },
  ],
  arrangeStatus: arrangePipeline,
  unknownRawStatus: "hibernating",
  arrangeNotFound() {
    nextPipelineId += 1;
    mock.gitlab
      .intercept({ path: at(`${projectPath}/pipelines/${nextPipelineId}`), method: "GET" })
      .reply(404, { message: "404 Not found" }, json);
    return { project, pipelineId: nextPipelineId };
  },
  arrangeRetryableFailure() {
    nextPipelineId += 1;
    mock.gitlab
      .intercept({ path: at(`${projectPath}/pipelines/${nextPipelineId}`), method: "GET" })
      .reply(503, "<html>502 Whoops, GitLab is taking too much time to respond.</html>");
    return { project, pipelineId: nextPipelineId };
  },
  start: { tool: "create_pipeline", input: { project, ref: "main" } },
  inputRequired: {
    arrange() {
      played.length = 0;
      reviews.length = 0;
      recordPost(mock, `${projectPath}/jobs/7710022/play`, 200, { id: 7710022, status: "pending" }, played);
      recordPost(mock, `${projectPath}/deployments/41207/approval`, 201, { status: "approved" }, reviews);
      return arrangePipeline("manual");
    },
    // The suite gives this one answer to every request: it plays the job and approves the deployment.
    response: {
      action: "accept",
      content: { play: true, approve: true, comment: "approved by the conformance suite" },
    },
    verifyResponded: () =>
      played.length === 1 &&
      JSON.stringify(reviews) ===
        JSON.stringify([{ status: "approved", comment: "approved by the conformance suite" }]),
  },
  // A manual job has no "reject" on GitLab: declined or not played, it goes on waiting for a later answer.
  answersLeavingOpen: [
    {
      name: "a declined manual job",
      arrange: () => arrangePipeline("manual"),
      response: { action: "decline" },
      appliesTo: (key) => key.startsWith("play-job-"),
    },
    {
      name: "a manual job not played (play: false)",
      arrange: () => arrangePipeline("manual"),
      response: { action: "accept", content: { play: false } },
      appliesTo: (key) => key.startsWith("play-job-"),
    },
  ],
  cancel: {
    arrange() {
      cancels.length = 0;
      const ref = arrangePipeline("running");
      recordPost(
        mock,
        `${projectPath}/pipelines/${ref.pipelineId}/cancel`,
        200,
        pipeline({ id: ref.pipelineId, status: "canceling" }),
        cancels,
      );
      return ref;
    },
    verifyCancelRequested: () => cancels.length === 1,
  },
  additionalTests({ harness, createAdapter, createContext }) {
    it("keeps a finished pipeline's answer the same on every read", async () => {
      const adapter = await createAdapter();
      const ref = await harness.arrangeStatus("failed");
      const first = await adapter.doGetStatus(ref, createContext());
      mock.gitlab
        .intercept({ path: at(`${projectPath}/pipelines/${ref.pipelineId}`), method: "GET" })
        .reply(
          200,
          pipeline({ id: ref.pipelineId, status: "failed", finished_at: "2026-11-30T09:17:02.000Z", duration: 299 }),
          json,
        );
      mock.gitlab
        .intercept({ path: at(`${projectPath}/pipelines/${ref.pipelineId}/jobs`), method: "GET" })
        .reply(200, fixture("jobs-failed.json"), json);
      expect(await adapter.doGetStatus(ref, createContext())).toEqual(first);
    });
  },
});
