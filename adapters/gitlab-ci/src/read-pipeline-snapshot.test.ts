import { UpstreamError } from "@jobtasks/core";
import { createTestContext } from "@jobtasks/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pipelineResultSchema } from "./pipeline-result-schema.js";
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
} from "./test-support/mock-gitlab.js";

// A fresh GitLab per test; every answer a test arranged must have been asked for.
let mock = createMockGitlab();
beforeEach(() => {
  mock = createMockGitlab();
});
afterEach(() => mock.agent.assertNoPendingInterceptors());

const pipelineId = 1284711;
const path = `${projectPath}/pipelines/${pipelineId}`;
const finished = { finished_at: "2026-11-30T09:17:02.000Z", duration: 299 };

function arrangeFailed(trace = fixtureText("trace-rspec-failed.txt")) {
  mock.gitlab
    .intercept({ path: at(path), method: "GET" })
    .reply(200, pipeline({ status: "failed", ...finished }), json);
  mock.gitlab.intercept({ path: at(`${path}/jobs`), method: "GET" }).reply(200, fixture("jobs-failed.json"), json);
  mock.gitlab.intercept({ path: at(`${projectPath}/jobs/7710003/trace`), method: "GET" }).reply(200, trace);
  mock.gitlab
    .intercept({ path: at(`${projectPath}/jobs/7710002/trace`), method: "GET" })
    .reply(200, "$ npm run lint\n3 problems\n");
}

describe("a finished pipeline's result", () => {
  it("names the failed jobs and stages with the end of their traces, and lists the artifacts", async () => {
    arrangeFailed();
    const snapshot = await createTestAdapter(mock).doGetStatus({ project, pipelineId }, createTestContext());
    expect(snapshot).toMatchObject({ status: "completed", rawStatus: "failed", updatedAt: "2026-11-30T09:17:02.000Z" });
    expect(snapshot.result?.isError).toBe(true);
    const result = snapshot.result?.structuredContent as Record<string, any>;
    expect(result["failedStages"]).toEqual(["test"]);
    expect(result["failedJobs"].map((job: any) => [job.name, job.stage, job.failureReason, job.allowFailure])).toEqual([
      ["rspec 2/2", "test", "script_failure", false],
      ["lint", "test", "script_failure", true],
    ]);
    const tail = result["failedJobs"][0].traceTail as string;
    expect(tail).toContain("expected: 90");
    expect(tail).toContain("ERROR: Job failed: exit code 1");
    // Colours and section markers are GitLab's page furniture, not the log.
    expect(tail).not.toMatch(/\x1b|section_(start|end)/);
    // The build printed the token: it never reaches the agent.
    expect(JSON.stringify(snapshot)).not.toContain(testToken);
    expect(tail).toContain("Fetching credentials with [redacted]");
    // In pipeline order (GitLab lists newest first).
    expect(result["artifacts"]).toEqual([
      { jobId: 7710001, jobName: "build", fileType: "archive", filename: "artifacts.zip", sizeInBytes: 5242880 },
      { jobId: 7710001, jobName: "build", fileType: "metadata", filename: "metadata.gz", sizeInBytes: 312 },
      { jobId: 7710003, jobName: "rspec 2/2", fileType: "junit", filename: "junit.xml.gz", sizeInBytes: 1893 },
    ]);
    // What tools/list announces as the tools' outputSchema.
    expect(pipelineResultSchema.safeParse(result).success).toBe(true);
    const text = (snapshot.result?.content[0] as { text: string }).text;
    expect(text).toContain("Failed job 'rspec 2/2' (stage test, script_failure)");
    expect(text).toContain("artifacts.zip");
  });

  it("bounds each trace in lines and the whole result in bytes", async () => {
    const long = Array.from({ length: 500 }, (_, index) => `line ${index + 1} ${"x".repeat(40)}`).join("\n");
    arrangeFailed(long);
    const adapter = createTestAdapter(mock, { logs: { maxLinesPerJob: 5, maxBytes: 150 } });
    const result = (await adapter.doGetStatus({ project, pipelineId }, createTestContext())).result
      ?.structuredContent as Record<string, any>;
    const tail = result["failedJobs"][0].traceTail as string;
    expect(tail.split("\n").length).toBeLessThanOrEqual(5);
    expect(tail.endsWith("line 500 " + "x".repeat(40))).toBe(true);
    const bytes = result["failedJobs"].reduce(
      (sum: number, job: any) => sum + Buffer.byteLength(job.traceTail ?? ""),
      0,
    );
    expect(bytes).toBeLessThanOrEqual(150);
  });

  it("reads at most maxReadBytes of a trace and says so", async () => {
    arrangeFailed("a".repeat(5000) + "\nthe real end\n");
    const adapter = createTestAdapter(mock, { logs: { maxReadBytes: 1000 } });
    const result = (await adapter.doGetStatus({ project, pipelineId }, createTestContext())).result
      ?.structuredContent as Record<string, any>;
    expect(result["failedJobs"][0].traceTail).not.toContain("the real end");
    expect(result["failedJobs"][0].traceNote).toContain("longer than 1000 bytes");
  });

  it("stops reading traces at the time bound and keeps what was read", async () => {
    mock.gitlab
      .intercept({ path: at(path), method: "GET" })
      .reply(200, pipeline({ status: "failed", ...finished }), json);
    mock.gitlab.intercept({ path: at(`${path}/jobs`), method: "GET" }).reply(200, fixture("jobs-failed.json"), json);
    // A trace that takes longer than the whole budget to arrive; the second job is then not read at all.
    mock.gitlab
      .intercept({ path: at(`${projectPath}/jobs/7710003/trace`), method: "GET" })
      .reply(200, "too late\n")
      .delay(2_000);
    const started = Date.now();
    const adapter = createTestAdapter(mock, { logs: { maxReadMs: 100 } });
    const result = (await adapter.doGetStatus({ project, pipelineId }, createTestContext())).result
      ?.structuredContent as Record<string, any>;
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(result["failedJobs"][0].traceNote).toContain("reading stopped after 100 ms");
    expect(result["failedJobs"][1].traceNote).toContain("not read");
  });

  it("still answers when a trace cannot be read", async () => {
    mock.gitlab
      .intercept({ path: at(path), method: "GET" })
      .reply(200, pipeline({ status: "failed", ...finished }), json);
    mock.gitlab.intercept({ path: at(`${path}/jobs`), method: "GET" }).reply(200, fixture("jobs-failed.json"), json);
    mock.gitlab
      .intercept({ path: at(`${projectPath}/jobs/7710003/trace`), method: "GET" })
      .reply(404, { message: "404 Not found" }, json);
    mock.gitlab.intercept({ path: at(`${projectPath}/jobs/7710002/trace`), method: "GET" }).reply(200, "3 problems\n");
    const result = (await createTestAdapter(mock).doGetStatus({ project, pipelineId }, createTestContext())).result
      ?.structuredContent as Record<string, any>;
    expect(result["failedJobs"][0].traceNote).toBe("GitLab did not serve the trace");
    expect(result["failedJobs"][1].traceTail).toBe("3 problems");
  });
});

describe("a pipeline waiting for people", () => {
  it("asks to play each manual job and to approve each blocked deployment, keyed by upstream facts", async () => {
    mock.gitlab.intercept({ path: at(path), method: "GET" }).reply(200, pipeline({ status: "manual" }), json);
    mock.gitlab.intercept({ path: at(`${path}/jobs`), method: "GET" }).reply(200, fixture("jobs-manual.json"), json);
    mock.gitlab
      .intercept({
        path: at(`${projectPath}/deployments`, (query) => query.get("status") === "blocked"),
        method: "GET",
      })
      .reply(200, fixture("deployments-blocked.json"), json);
    const snapshot = await createTestAdapter(mock).doGetStatus({ project, pipelineId }, createTestContext());
    expect(snapshot.status).toBe("input_required");
    // The deployment's own job (7710023) is asked once, as an approval; another pipeline's deployment not at all.
    expect(Object.keys(snapshot.inputRequests ?? {}).sort()).toEqual([
      "approve-deployment-41207-after-1-approvals",
      "play-job-7710022",
    ]);
    expect(snapshot.inputRequests?.["approve-deployment-41207-after-1-approvals"]?.params.message).toContain(
      "production",
    );
    // Both are a person's decision: approvals, which the server lets only the approval scope answer; each
    // names the pipeline's page, where that person can decide instead.
    expect([...(snapshot.approvalKeys ?? [])].sort()).toEqual(Object.keys(snapshot.inputRequests ?? {}).sort());
    for (const request of Object.values(snapshot.inputRequests ?? {}))
      expect(request.params.message).toContain(`Decide on GitLab: ${pipeline({})["web_url"] as string}`);
    // Each form's boolean defaults to "no", so a client can send the refusal it shows without toggling twice.
    const booleanOf = (key: string, field: string) =>
      (snapshot.inputRequests?.[key]?.params as { requestedSchema: { properties: Record<string, unknown> } })
        .requestedSchema.properties[field];
    expect(booleanOf("approve-deployment-41207-after-1-approvals", "approve")).toMatchObject({
      type: "boolean",
      default: false,
    });
    expect(booleanOf("play-job-7710022", "play")).toMatchObject({ type: "boolean", default: false });
  });

  it("still asks about the manual jobs when the token may not list deployments", async () => {
    mock.gitlab.intercept({ path: at(path), method: "GET" }).reply(200, pipeline({ status: "manual" }), json);
    mock.gitlab.intercept({ path: at(`${path}/jobs`), method: "GET" }).reply(200, fixture("jobs-manual.json"), json);
    mock.gitlab
      .intercept({ path: at(`${projectPath}/deployments`), method: "GET" })
      .reply(403, { message: "403 Forbidden" }, json);
    const context = createTestContext();
    const snapshot = await createTestAdapter(mock).doGetStatus({ project, pipelineId }, context);
    expect(snapshot.status).toBe("input_required");
    expect(Object.keys(snapshot.inputRequests ?? {}).sort()).toEqual(["play-job-7710022", "play-job-7710023"]);
    expect(context.logEntries.map((entry) => entry.message)).toContain(
      "cannot list the pipeline's deployments; asking about its manual jobs only",
    );
  });

  it("stays working when nothing waits that the task can answer", async () => {
    mock.gitlab.intercept({ path: at(path), method: "GET" }).reply(200, pipeline({ status: "manual" }), json);
    mock.gitlab.intercept({ path: at(`${path}/jobs`), method: "GET" }).reply(200, fixture("jobs-running.json"), json);
    mock.gitlab.intercept({ path: at(`${projectPath}/deployments`), method: "GET" }).reply(200, [], json);
    const snapshot = await createTestAdapter(mock).doGetStatus({ project, pipelineId }, createTestContext());
    expect(snapshot).toMatchObject({ status: "working", rawStatus: "manual" });
  });
});

describe("a retried pipeline", () => {
  it("is working until GitLab shows jobs newer than the retry's watermark", async () => {
    const adapter = createTestAdapter(mock);
    const ref = { project, pipelineId, retriedAfterJobId: 7710003 };
    mock.gitlab
      .intercept({ path: at(path), method: "GET" })
      .reply(200, pipeline({ status: "failed", ...finished }), json);
    mock.gitlab.intercept({ path: at(`${path}/jobs`), method: "GET" }).reply(200, fixture("jobs-failed.json"), json);
    expect(await adapter.doGetStatus(ref, createTestContext())).toMatchObject({
      status: "working",
      rawStatus: "failed",
      message: expect.stringContaining("retry requested"),
    });

    const retriedJobs = [
      { ...fixture("jobs-failed.json")[0], id: 7710100, status: "success", artifacts: [] },
      ...fixture("jobs-failed.json").slice(2),
    ];
    mock.gitlab
      .intercept({ path: at(path), method: "GET" })
      .reply(200, pipeline({ status: "success", ...finished }), json);
    mock.gitlab.intercept({ path: at(`${path}/jobs`), method: "GET" }).reply(200, retriedJobs, json);
    const snapshot = await adapter.doGetStatus(ref, createTestContext());
    expect(snapshot).toMatchObject({ status: "completed", rawStatus: "success" });
    expect(snapshot.result?.isError).toBeUndefined();
  });

  it("answers a task whose run ended before a later retry with that run's end, from its own jobs, saying so", async () => {
    // A fresh adapter, as after a restart: nothing remembered, only the sealed ref and GitLab's answers.
    const adapter = createTestAdapter(mock);
    mock.gitlab
      .intercept({ path: at(path), method: "GET" })
      .reply(200, pipeline({ status: "running", updated_at: "2026-11-30T10:02:20.000Z" }), json);
    let query: URLSearchParams | undefined;
    mock.gitlab
      .intercept({ path: at(`${path}/jobs`, (parameters) => ((query = parameters), true)), method: "GET" })
      .reply(200, fixture("jobs-retried.json"), json);
    mock.gitlab
      .intercept({ path: at(`${projectPath}/jobs/7710003/trace`), method: "GET" })
      .reply(200, fixtureText("trace-rspec-failed.txt"));
    mock.gitlab
      .intercept({ path: at(`${projectPath}/jobs/7710002/trace`), method: "GET" })
      .reply(200, "$ npm run lint\n3 problems\n");
    const snapshot = await adapter.doGetStatus({ project, pipelineId, jobsUpTo: 7710003 }, createTestContext());
    expect(query?.get("include_retried")).toBe("true");
    expect(snapshot).toMatchObject({
      status: "completed",
      rawStatus: "failed",
      // When the run's last job finished, not the pipeline's later change.
      updatedAt: "2026-11-30T09:16:44.000Z",
      message: expect.stringMatching(
        /^the pipeline failed \(the pipeline has been retried since, and GitLab now shows a later run \(running\)/,
      ),
    });
    expect(snapshot.result?.isError).toBe(true);
    const result = snapshot.result?.structuredContent as Record<string, any>;
    expect(result).toMatchObject({
      pipelineId,
      iid: 412,
      status: "failed",
      failedStages: ["test"],
      durationSeconds: null,
    });
    expect(result["failedJobs"].map((job: any) => job.id)).toEqual([7710003, 7710002]);
    expect(pipelineResultSchema.safeParse(result).success).toBe(true);
    const text = (snapshot.result?.content[0] as { text: string }).text;
    expect(text).toContain("Pipeline #412 (id 1284711) failed on main");
    expect(text).toContain("watch_pipeline with pipelineId 1284711 follows that run");
  });

  it("follows the retry for a task that started after it", async () => {
    const adapter = createTestAdapter(mock);
    mock.gitlab.intercept({ path: at(path), method: "GET" }).reply(200, pipeline({ status: "running" }), json);
    mock.gitlab.intercept({ path: at(`${path}/jobs`), method: "GET" }).reply(200, fixture("jobs-retried.json"), json);
    expect(await adapter.doGetStatus({ project, pipelineId, jobsUpTo: 7710052 }, createTestContext())).toMatchObject({
      status: "working",
      rawStatus: "running",
      message: "test: rspec 2/2 (2 of 3 jobs done)",
    });
  });
});

describe("a running pipeline", () => {
  it("names the stage and the job running, and how many jobs are done", async () => {
    mock.gitlab.intercept({ path: at(path), method: "GET" }).reply(200, pipeline({ status: "running" }), json);
    mock.gitlab
      .intercept({ path: at(`${path}/jobs`), method: "GET" })
      .reply(200, fixture("jobs-test-stage.json"), json);
    expect(await createTestAdapter(mock).doGetStatus({ project, pipelineId }, createTestContext())).toMatchObject({
      status: "working",
      message: "test: rspec (2 of 5 jobs done)",
    });
  });
});

describe("cancelling a pipeline that waits at a manual job", () => {
  it("says that GitLab ignored the cancel", async () => {
    const cancels: unknown[] = [];
    recordPost(mock, `${path}/cancel`, 200, pipeline({ status: "manual" }), cancels);
    const error = await createTestAdapter(mock).doCancel!({ project, pipelineId }, createTestContext()).catch(
      (caught: unknown) => caught,
    );
    expect(cancels).toHaveLength(1);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ isRetryable: false });
    expect((error as Error).message).toMatch(/^GitLab ignored the cancel: pipeline 1284711 waits at a manual job/);
  });
});
