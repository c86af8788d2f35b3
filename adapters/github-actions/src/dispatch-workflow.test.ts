import { InvalidToolInputError, OutcomeUnknownError, UpstreamError } from "@jobtasks/core";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { GithubActionsOptions } from "./github-actions-adapter.js";
import { createTestAdapter, createTestContext, fixture, github, nock } from "./test-support/github-fixtures.js";

const dispatchPath = "/repos/octo-org/octo-app/actions/workflows/deploy.yml/dispatches";
const runsPath = "/repos/octo-org/octo-app/actions/workflows/deploy.yml/runs";

const deployWorkflow: GithubActionsOptions = {
  workflows: [
    {
      tool: "run_deploy",
      repository: "octo-org/octo-app",
      workflow: "deploy.yml",
      ref: "main",
      correlationInput: "distinct_id",
      inputs: { environment: { options: ["staging", "production"], required: true }, dry_run: { default: "false" } },
    },
  ],
};

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending, "every arranged GitHub call was made").toEqual([]);
});

function deployTool(options: GithubActionsOptions = deployWorkflow) {
  const tool = createTestAdapter(options).tools.find((candidate) => candidate.name === "run_deploy");
  if (!tool) throw new Error("no run_deploy tool");
  return tool;
}

function start(options: GithubActionsOptions, input: unknown) {
  const tool = deployTool(options);
  return tool.doStart(tool.inputSchema.parse(input), createTestContext());
}

describe("dispatch tools", () => {
  it("returns the exact run GitHub reports with return_run_details, once the run can be read", async () => {
    let body: any;
    // Eventually consistent: the run GitHub just named is not served for a moment.
    github().get("/repos/octo-org/octo-app/actions/runs/9182799001/attempts/1").reply(404, { message: "Not Found" });
    github()
      .get("/repos/octo-org/octo-app/actions/runs/9182799001/attempts/1")
      .reply(200, { ...fixture("workflow-run.json"), id: 9182799001, status: "queued", conclusion: null });
    github()
      .post(dispatchPath, (sent) => ((body = sent), true))
      .reply(200, {
        workflow_run_id: 9182799001,
        run_url: "https://api.github.com/repos/octo-org/octo-app/actions/runs/9182799001",
        html_url: "https://github.com/octo-org/octo-app/actions/runs/9182799001",
      });
    const started = await start(deployWorkflow, { inputs: { environment: "staging" }, ref: "release/1.4" });
    expect(started.ref).toEqual({ owner: "octo-org", repo: "octo-app", runId: 9182799001, attempt: 1 });
    expect(started.snapshot?.status).toBe("working");
    expect(body).toMatchObject({
      ref: "release/1.4",
      return_run_details: true,
      inputs: { environment: "staging", dry_run: "false" },
    });
    expect(body.inputs.distinct_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("finds the run by the correlation input when GitHub answers 204 without an id, waiting until it appears", async () => {
    let distinctId = "";
    github()
      .post(dispatchPath, (sent) => ((distinctId = sent.inputs.distinct_id), true))
      .reply(204);
    // GitHub is eventually consistent: the first look-up does not show the run yet.
    github().get(runsPath).query(true).reply(200, { total_count: 0, workflow_runs: [] });
    github()
      .get(runsPath)
      .query((query) => query.event === "workflow_dispatch" && String(query.created).startsWith(">="))
      .reply(() => {
        const runs = fixture("workflow-runs-dispatched.json");
        runs.workflow_runs[0].display_title = `Deploy main (${distinctId})`;
        runs.workflow_runs.unshift({
          ...runs.workflow_runs[0],
          id: 9182799000,
          display_title: "Deploy main (someone else's run)",
        });
        return [200, runs];
      });
    const started = await start(deployWorkflow, { inputs: { environment: "production" } });
    expect(started.ref).toEqual({ owner: "octo-org", repo: "octo-app", runId: 9182799001, attempt: 1 });
  });

  it("refuses to hand out a task for a run that never becomes readable, and says how to follow it", async () => {
    github().post(dispatchPath).reply(200, { workflow_run_id: 9182799001 });
    github()
      .get("/repos/octo-org/octo-app/actions/runs/9182799001/attempts/1")
      .times(50)
      .optionally()
      .reply(404, { message: "Not Found" });
    const error = await start(
      { ...deployWorkflow, dispatch: { correlationTimeoutMs: 50, correlationPollMs: 10 } } as GithubActionsOptions,
      { inputs: { environment: "staging" } },
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error).toMatchObject({ isRetryable: false });
    expect((error as Error).message).toMatch(/run 9182799001, but the run could not be read.*watch_run/);
  });

  it("keeps waiting through a server error on the read-back once GitHub accepted the dispatch", async () => {
    github().post(dispatchPath).reply(200, { workflow_run_id: 9182799001 });
    github().get("/repos/octo-org/octo-app/actions/runs/9182799001/attempts/1").reply(502, { message: "Server Error" });
    github()
      .get("/repos/octo-org/octo-app/actions/runs/9182799001/attempts/1")
      .reply(200, { ...fixture("workflow-run.json"), id: 9182799001 });
    const started = await start({ ...deployWorkflow, requestRetries: 0 }, { inputs: { environment: "staging" } });
    expect(started.ref).toMatchObject({ runId: 9182799001, attempt: 1 });
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
    "never answers 'try again' after GitHub accepted the dispatch: %s on the read-back names the run to watch",
    async (_label, status, body, headers) => {
      github().post(dispatchPath).reply(200, { workflow_run_id: 9182799001 });
      github()
        .get("/repos/octo-org/octo-app/actions/runs/9182799001/attempts/1")
        .times(100)
        .optionally()
        .reply(status, body, headers);
      const error = await start(
        {
          ...deployWorkflow,
          requestRetries: 0,
          maxRateLimitWaitMs: 0,
          dispatch: { correlationTimeoutMs: 50, correlationPollMs: 5 },
        } as GithubActionsOptions,
        {
          inputs: { environment: "staging" },
        },
      ).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      expect(error).toMatchObject({ isRetryable: false, isThrottled: false });
      expect((error as Error).message).toMatch(
        /started workflow deploy\.yml as run 9182799001.*watch_run \(runId 9182799001\).*not dispatch/,
      );
    },
  );

  it.each([
    ["a lasting server error", 502, { message: "Server Error" }],
    ["a refusal", 403, { message: "Resource not accessible by integration" }],
  ])(
    "never answers 'try again' after a 204: %s on the run list says not to dispatch again",
    async (_label, status, body) => {
      github().post(dispatchPath).reply(204);
      github().get(runsPath).query(true).times(100).optionally().reply(status, body);
      const error = await start(
        {
          ...deployWorkflow,
          requestRetries: 0,
          dispatch: { correlationTimeoutMs: 50, correlationPollMs: 5 },
        } as GithubActionsOptions,
        {
          inputs: { environment: "staging" },
        },
      ).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      expect(error).toMatchObject({ isRetryable: false });
      expect((error as Error).message).toMatch(
        /started workflow deploy\.yml.*look at the workflow's recent runs; do not dispatch again/i,
      );
    },
  );

  it("asks again without return_run_details when an older GitHub Enterprise Server refuses the key", async () => {
    const bodies: any[] = [];
    github()
      .post(dispatchPath, (sent) => (bodies.push(sent), true))
      .reply(422, { message: 'Invalid request.\n\n"return_run_details" is not a permitted key.' });
    github()
      .post(dispatchPath, (sent) => (bodies.push(sent), true))
      .reply(204);
    github()
      .get(runsPath)
      .query(true)
      .reply(() => {
        const runs = fixture("workflow-runs-dispatched.json");
        runs.workflow_runs[0].display_title = `Deploy main (${bodies[1].inputs.distinct_id})`;
        return [200, runs];
      });
    const started = await start(deployWorkflow, { inputs: { environment: "staging" } });
    expect(started.ref.runId).toBe(9182799001);
    expect(bodies[0].return_run_details).toBe(true);
    expect(bodies[1].return_run_details).toBeUndefined();
  });

  it("gives up, bounded, when the correlated run never appears", async () => {
    github().post(dispatchPath).reply(204);
    github().get(runsPath).query(true).times(100).optionally().reply(200, { total_count: 0, workflow_runs: [] });
    const error = await start(deployWorkflow, { inputs: { environment: "staging" } }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).isRetryable).toBe(false);
    expect((error as Error).message).toMatch(/no run showing distinct_id=[0-9a-f-]{36} was found within/);
    expect((error as Error).message).toMatch(/do not dispatch again/);
  });

  it("refuses to guess when GitHub answers 204 and no correlation input is configured", async () => {
    const withoutCorrelation: GithubActionsOptions = {
      workflows: [{ tool: "run_deploy", repository: "octo-org/octo-app", workflow: "deploy.yml" }],
    };
    let body: any;
    github()
      .post(dispatchPath, (sent) => ((body = sent), true))
      .reply(204);
    const error = await start(withoutCorrelation, { inputs: { anything: "goes", count: 3 } }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as Error).message).toContain("no correlationInput is configured");
    expect((error as Error).message).toMatch(/do not dispatch again/);
    expect(body).toMatchObject({ ref: "main", inputs: { anything: "goes", count: "3" } });
  });

  it("lets the input schema refuse a value outside a declared choice", () => {
    const tool = deployTool();
    expect(tool.inputSchema.safeParse({ inputs: { environment: "moon" } }).success).toBe(false);
    expect(tool.inputSchema.safeParse({ inputs: { dry_run: "true" } }).success).toBe(false);
    expect(tool.inputSchema.safeParse({ inputs: { environment: "staging", unknown: "x" } }).success).toBe(false);
  });

  it("refuses more inputs than GitHub accepts, counting the correlation input", async () => {
    const options: GithubActionsOptions = {
      workflows: [
        {
          tool: "run_deploy",
          repository: "octo-org/octo-app",
          workflow: "deploy.yml",
          correlationInput: "distinct_id",
        },
      ],
    };
    const inputs = Object.fromEntries(Array.from({ length: 25 }, (_, index) => [`input_${index}`, "x"]));
    await expect(start(options, { inputs })).rejects.toBeInstanceOf(InvalidToolInputError);
  });
});

describe("run_workflow, the generic dispatch tool", () => {
  const options: GithubActionsOptions = { allowedWorkflows: ["octo-org/octo-app/deploy.yml"], toolPrefix: "ci_" };

  it("dispatches a workflow on the allow-list", async () => {
    github().post(dispatchPath).reply(200, { workflow_run_id: 9182799001 });
    github()
      .get("/repos/octo-org/octo-app/actions/runs/9182799001/attempts/1")
      .reply(200, { ...fixture("workflow-run.json"), id: 9182799001 });
    const tool = createTestAdapter(options).tools.find((candidate) => candidate.name === "ci_run_workflow")!;
    const input = tool.inputSchema.parse({ owner: "octo-org", repo: "octo-app", workflow: "deploy.yml", ref: "main" });
    const started = await tool.doStart(input, createTestContext());
    expect(started.ref).toMatchObject({ runId: 9182799001, attempt: 1 });
  });

  it("refuses a workflow that is not on the allow-list, before calling GitHub", async () => {
    const tool = createTestAdapter(options).tools.find((candidate) => candidate.name === "ci_run_workflow")!;
    const input = tool.inputSchema.parse({ owner: "octo-org", repo: "octo-app", workflow: "release.yml", ref: "main" });
    await expect(tool.doStart(input, createTestContext())).rejects.toMatchObject({ field: "workflow" });
  });
});
