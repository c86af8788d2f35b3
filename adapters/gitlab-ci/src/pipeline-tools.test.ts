import { InvalidToolInputError, type JobTool } from "@jobtasks/core";
import { createTestContext } from "@jobtasks/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PipelineRef } from "./pipeline-ref.js";
import {
  at,
  createMockGitlab,
  createTestAdapter,
  fixture,
  json,
  pipeline,
  project,
  projectPath,
  recordPost,
} from "./test-support/mock-gitlab.js";

// A fresh GitLab per test; every answer a test arranged must have been asked for.
let mock = createMockGitlab();
beforeEach(() => {
  mock = createMockGitlab();
});
afterEach(() => mock.agent.assertNoPendingInterceptors());

function tool(name: string, options = {}): JobTool<PipelineRef> {
  return createTestAdapter(mock, options).tools.find((candidate) => candidate.name === name)!;
}

/** What the server does before doStart: parse the arguments with the tool's schema. */
async function start(name: string, args: unknown, options = {}) {
  const chosen = tool(name, options);
  return chosen.doStart(chosen.inputSchema.parse(args), createTestContext());
}

describe("create_pipeline", () => {
  it("runs the pipeline on the ref with the agent's variables", async () => {
    const sent: unknown[] = [];
    recordPost(mock, `${projectPath}/pipeline`, 201, pipeline({ id: 1284999, status: "created" }), sent);
    mock.gitlab
      .intercept({ path: at(`${projectPath}/pipelines/1284999/jobs`), method: "GET" })
      .reply(200, fixture("jobs-running.json"), json);
    const started = await start("create_pipeline", {
      project,
      ref: "release/2.4",
      variables: { DEPLOY_TARGET: "staging" },
    });
    // Pinned at the newest job the pipeline was created with: a later retry is not this task's run.
    expect(started.ref).toEqual({ project, pipelineId: 1284999, jobsUpTo: 7710011 });
    expect(sent).toEqual([
      { ref: "release/2.4", variables: [{ key: "DEPLOY_TARGET", value: "staging", variable_type: "env_var" }] },
    ]);
  });

  it("runs on the default ref when the agent names none, and sends a numeric project id as it is", async () => {
    const sent: unknown[] = [];
    recordPost(mock, "/api/v4/projects/278964/pipeline", 201, pipeline({ id: 1285000, status: "created" }), sent);
    mock.gitlab
      .intercept({ path: at("/api/v4/projects/278964/pipelines/1285000/jobs"), method: "GET" })
      .reply(503, { message: "502 Bad Gateway" }, json);
    const started = await start("create_pipeline", { project: "278964" }, { defaultRef: "develop" });
    expect(sent).toEqual([{ ref: "develop" }]);
    // The pipeline exists: a job list that could not be read leaves the ref unpinned, not the start failed.
    expect(started.ref).toEqual({ project: "278964", pipelineId: 1285000 });
  });

  it("only lets the agent name an allow-listed project", () => {
    const parsed = tool("create_pipeline").inputSchema.safeParse({ project: "someone-else/app" });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(["project"]);
  });

  it("refuses variables when the options do not allow them", () => {
    expect(
      tool("create_pipeline", { allowVariables: false }).inputSchema.safeParse({ project, variables: { A: "1" } })
        .success,
    ).toBe(false);
    expect(tool("create_pipeline").inputSchema.safeParse({ project, variables: { "NOT-A-KEY": "1" } }).success).toBe(
      false,
    );
  });

  it("passes GitLab's reason for a refused ref on to the agent", async () => {
    mock.gitlab
      .intercept({ path: at(`${projectPath}/pipeline`), method: "POST" })
      .reply(400, { message: { base: ["Reference not found"] } }, json);
    await expect(start("create_pipeline", { project, ref: "nope" })).rejects.toThrow(/HTTP 400: Reference not found/);
  });
});

describe("watch_pipeline", () => {
  it("follows the latest pipeline of a commit", async () => {
    let query: URLSearchParams | undefined;
    mock.gitlab
      .intercept({ path: at(`${projectPath}/pipelines`, (parameters) => ((query = parameters), true)), method: "GET" })
      .reply(200, [{ id: 1284711, status: "running" }], json);
    mock.gitlab
      .intercept({ path: at(`${projectPath}/pipelines/1284711/jobs`), method: "GET" })
      .reply(200, fixture("jobs-running.json"), json);
    const started = await start("watch_pipeline", { project, sha: "a91957a8" });
    expect(started.ref).toEqual({ project, pipelineId: 1284711, jobsUpTo: 7710011 });
    expect(query?.get("sha")).toBe("a91957a8");
    expect(query?.get("per_page")).toBe("1");
  });

  it("says which argument found nothing", async () => {
    mock.gitlab.intercept({ path: at(`${projectPath}/pipelines`), method: "GET" }).reply(200, [], json);
    const error = await start("watch_pipeline", { project, ref: "feature/x" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidToolInputError);
    expect(error).toMatchObject({ field: "ref" });
  });

  it("reports an unknown pipeline id as a bad argument", async () => {
    mock.gitlab
      .intercept({ path: at(`${projectPath}/pipelines/99`), method: "GET" })
      .reply(404, { message: "404 Not found" }, json);
    await expect(start("watch_pipeline", { project, pipelineId: 99 })).rejects.toMatchObject({ field: "pipelineId" });
  });

  it("wants either a pipeline id or a commit or ref, not both", () => {
    const schema = tool("watch_pipeline").inputSchema;
    expect(schema.safeParse({ project }).success).toBe(false);
    expect(schema.safeParse({ project, pipelineId: 1, ref: "main" }).success).toBe(false);
    expect(schema.safeParse({ project, sha: "a91957a8", ref: "main" }).success).toBe(true);
  });
});

describe("retry_pipeline", () => {
  const path = `${projectPath}/pipelines/1284711`;

  it("retries a failed pipeline and pins the newest job id it had, and the retry's own newest job", async () => {
    mock.gitlab.intercept({ path: at(path), method: "GET" }).reply(200, pipeline({ status: "failed" }), json);
    const jobs = fixture<Array<Record<string, unknown>>>("jobs-failed.json");
    mock.gitlab.intercept({ path: at(`${path}/jobs`), method: "GET" }).reply(200, jobs, json);
    const sent: unknown[] = [];
    recordPost(mock, `${path}/retry`, 201, pipeline({ status: "running" }), sent);
    mock.gitlab
      .intercept({ path: at(`${path}/jobs`), method: "GET" })
      .reply(
        200,
        [{ ...jobs[0], id: 7710005, status: "pending" }, { ...jobs[1], id: 7710004, status: "pending" }, ...jobs],
        json,
      );
    const started = await start("retry_pipeline", { project, pipelineId: 1284711 });
    expect(started.ref).toEqual({ project, pipelineId: 1284711, retriedAfterJobId: 7710003, jobsUpTo: 7710005 });
    expect(sent).toHaveLength(1);
  });

  it("refuses a pipeline that is not failed or canceled", async () => {
    mock.gitlab.intercept({ path: at(path), method: "GET" }).reply(200, pipeline({ status: "running" }), json);
    await expect(start("retry_pipeline", { project, pipelineId: 1284711 })).rejects.toMatchObject({
      field: "pipelineId",
      problem: expect.stringContaining("running"),
    });
  });
});
