import { afterEach, describe, expect, it } from "vitest";
import { githubActions } from "@jobtasks/github-actions";
import { startFakeGithub, type FakeGithub, type FakeJob } from "./support/fake-github-api.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { recordingClient } from "./support/recording-client.js";

/**
 * The GitHub Actions adapter behind a real jobtasks server, used the way an agent uses it: dispatch a
 * workflow through its tool, poll tasks/get, answer the deployment approval with tasks/update, read the
 * failed step's log in the result, re-run, cancel. GitHub is a loopback fake (support/fake-github-api.ts)
 * reached through the adapter's real octokit stack.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const token = "ghp_E2eTokenThatMustNeverLeakAbCdEf0123456789";
const productionId = 161088068;

function createAdapter(github: FakeGithub) {
  return githubActions(
    {
      token,
      baseUrl: github.url,
      workflows: [
        {
          tool: "deploy_app",
          repository: "octo-org/octo-app",
          workflow: "deploy.yml",
          ref: "main",
          inputs: {
            environment: { description: "Where to deploy", options: ["staging", "production"], required: true },
          },
        },
      ],
      pollIntervalMs: 1_000,
      lookupPollMs: 5,
      watchCommitTimeoutMs: 2_000,
      requestRetries: 0,
    },
    // No GITHUB_TOKEN or GITHUB_API_URL from the machine running the tests.
    {},
  );
}

async function serve() {
  const github = cleanup.add(await startFakeGithub());
  const server = cleanup.add(
    await startInProcessServer({ adapters: [{ name: "github", adapter: createAdapter(github) }] }),
  );
  return { github, server, client: recordingClient(server.url) };
}

const buildJob = (status: FakeJob["status"], conclusion: string | null = null): FakeJob => ({
  id: 31_000_000_001,
  name: "build",
  status,
  conclusion,
  started_at: "2026-11-20T10:00:05Z",
  completed_at: status === "completed" ? "2026-11-20T10:03:00Z" : null,
  steps: [
    {
      name: "Set up job",
      status: "completed",
      conclusion: "success",
      started_at: "2026-11-20T10:00:05Z",
      completed_at: "2026-11-20T10:00:07Z",
    },
    {
      name: "Run tests",
      status: status === "completed" ? "completed" : "in_progress",
      conclusion: status === "completed" ? "success" : null,
      started_at: "2026-11-20T10:00:07Z",
      completed_at: status === "completed" ? "2026-11-20T10:02:58Z" : null,
    },
    {
      name: "Upload bundle",
      status: status === "completed" ? "completed" : "queued",
      conclusion: status === "completed" ? "success" : null,
    },
    {
      name: "Complete job",
      status: status === "completed" ? "completed" : "queued",
      conclusion: status === "completed" ? "success" : null,
    },
  ],
});

const deployJobId = 31_000_000_002;
const failedDeployJob: FakeJob = {
  id: deployJobId,
  name: "deploy",
  status: "completed",
  conclusion: "failure",
  started_at: "2026-11-20T10:05:00Z",
  completed_at: "2026-11-20T10:07:12Z",
  steps: [
    {
      name: "Set up job",
      status: "completed",
      conclusion: "success",
      started_at: "2026-11-20T10:05:00Z",
      completed_at: "2026-11-20T10:05:02Z",
    },
    {
      name: "Deploy to production",
      status: "completed",
      conclusion: "success",
      started_at: "2026-11-20T10:05:02Z",
      completed_at: "2026-11-20T10:06:00Z",
    },
    {
      name: "Run smoke tests",
      status: "completed",
      conclusion: "failure",
      started_at: "2026-11-20T10:06:01Z",
      completed_at: "2026-11-20T10:07:10Z",
    },
    {
      name: "Complete job",
      status: "completed",
      conclusion: "success",
      started_at: "2026-11-20T10:07:11Z",
      completed_at: "2026-11-20T10:07:12Z",
    },
  ],
};

/** A job log as GitHub serves it: every line stamped; the failing step in its own time window. */
const deployLog = [
  "2026-11-20T10:05:00.1000000Z Current runner version: '2.329.0'",
  "2026-11-20T10:05:02.2000000Z ##[group]Run ./scripts/deploy.sh production",
  "2026-11-20T10:05:02.2001000Z ./scripts/deploy.sh production",
  "2026-11-20T10:05:02.2002000Z ##[endgroup]",
  "2026-11-20T10:05:40.0000000Z rolled out octo-app:6dcb09b to production (3 replicas)",
  "2026-11-20T10:06:01.1000000Z ##[group]Run npm run smoke -- --target production",
  "2026-11-20T10:06:01.1001000Z ##[endgroup]",
  "2026-11-20T10:06:30.0000000Z smoke: GET /healthz -> 200",
  // A script that prints the token by mistake: the adapter must redact it before it reaches the agent.
  `2026-11-20T10:06:31.0000000Z using credentials ${token}`,
  "2026-11-20T10:07:05.0000000Z smoke: GET /api/orders -> 503 Service Unavailable",
  "2026-11-20T10:07:09.9000000Z ##[error]Process completed with exit code 1.",
  "2026-11-20T10:07:11.0000000Z Post job cleanup.",
].join("\n");

describe("GitHub Actions through the server", () => {
  it("dispatch, progress, approval, a failing job with its log; a re-run never changes the finished task", async () => {
    const { github, server, client } = await serve();
    const runId = github.nextRunId;

    // Dispatch: the tool answers with a task once GitHub has named the run (return_run_details).
    const created = await client.callTool("deploy_app", { inputs: { environment: "production" } });
    expect(created["resultType"]).toBe("task");
    expect(created["status"]).toBe("working");
    expect(typeof created["taskId"]).toBe("string");
    expect(created["pollIntervalMs"]).toBe(1_000);
    const taskId = created["taskId"] as string;
    const [dispatch] = github.requestsTo("POST", /\/actions\/workflows\/deploy\.yml\/dispatches$/);
    expect(dispatch?.body).toEqual({ ref: "main", inputs: { environment: "production" }, return_run_details: true });
    // The task id is opaque: no repository name or run id in clear.
    expect(taskId).not.toContain("octo-app");
    expect(taskId).not.toContain(String(runId));

    // Progress while the build runs.
    github.update(runId, {
      status: "in_progress",
      runStartedAt: "2026-11-20T10:00:00Z",
      updatedAt: "2026-11-20T10:01:00Z",
      jobs: [buildJob("in_progress")],
    });
    const running = await client.get(taskId);
    expect(running["status"]).toBe("working");
    expect(running["statusMessage"]).toBe("build: step 2/4 'Run tests' (0 of 1 job done)");

    // The deploy job waits on the protected environment: an approval form for the agent.
    github.update(runId, {
      status: "waiting",
      updatedAt: "2026-11-20T10:04:00Z",
      jobs: [buildJob("completed", "success"), { id: deployJobId, name: "deploy", status: "waiting" }],
      pendingDeployments: [
        {
          environmentId: productionId,
          environmentName: "production",
          canApprove: true,
          reviewers: [{ type: "User", login: "octocat" }],
        },
      ],
    });
    const waiting = await client.get(taskId);
    expect(waiting["status"]).toBe("input_required");
    expect(waiting["statusMessage"]).toMatch(/'production' waits for your approval/);
    const key = `deploy-${runId}-1-${productionId}-0`;
    expect(Object.keys(waiting["inputRequests"])).toEqual([key]);
    const form = waiting["inputRequests"][key];
    expect(form).toMatchObject({
      method: "elicitation/create",
      params: {
        mode: "form",
        requestedSchema: { type: "object", required: ["approve"], properties: { approve: { type: "boolean" } } },
      },
    });
    expect(form.params.message).toContain("production");

    // The agent approves; the answer becomes GitHub's review.
    const acknowledged = await client.update(taskId, {
      [key]: { action: "accept", content: { approve: true, comment: "smoke tests next" } },
    });
    expect(acknowledged["resultType"]).toBe("complete");
    const reviews = github.requestsTo("POST", /\/runs\/\d+\/pending_deployments$/);
    expect(reviews.map((review) => review.body)).toEqual([
      { environment_ids: [productionId], state: "approved", comment: "smoke tests next" },
    ]);
    expect(reviews[0]?.path).toContain(`/runs/${runId}/`);

    // Answering the same key again changes nothing: the request is no longer outstanding.
    await client.update(taskId, { [key]: { action: "accept", content: { approve: false } } });
    expect(github.requestsTo("POST", /\/pending_deployments$/)).toHaveLength(1);

    github.update(runId, {
      status: "in_progress",
      updatedAt: "2026-11-20T10:05:30Z",
      jobs: [
        buildJob("completed", "success"),
        { ...failedDeployJob, status: "in_progress", conclusion: null, completed_at: null, steps: [] },
      ],
    });
    const deploying = await client.get(taskId);
    expect(deploying["status"]).toBe("working");
    expect(deploying).not.toHaveProperty("inputRequests");
    expect(deploying["statusMessage"]).toMatch(/^deploy: running \(1 of 2 jobs done\)$/);

    // The run ends with the smoke tests failing: completed with isError, the failed step's log in the result.
    github.logs.set(deployJobId, deployLog);
    github.run(runId).artifacts.push({
      id: 4_412_200_001,
      name: "deploy-report",
      sizeInBytes: 20_480,
      createdAt: "2026-11-20T10:07:00Z",
    });
    github.update(runId, {
      status: "completed",
      conclusion: "failure",
      updatedAt: "2026-11-20T10:07:20Z",
      jobs: [buildJob("completed", "success"), failedDeployJob],
    });
    const finished = await client.get(taskId);
    expect(finished["status"]).toBe("completed");
    const result = finished["result"];
    expect(result["isError"]).toBe(true);
    expect(result["structuredContent"]).toMatchObject({
      repository: "octo-org/octo-app",
      runId,
      attempt: 1,
      conclusion: "failure",
      durationSeconds: 440,
      jobs: [
        { name: "build", conclusion: "success" },
        { name: "deploy", conclusion: "failure" },
      ],
      artifacts: [{ name: "deploy-report", sizeInBytes: 20_480 }],
    });
    const failedSteps = result["structuredContent"]["failedSteps"];
    expect(failedSteps).toHaveLength(1);
    expect(failedSteps[0]).toMatchObject({ job: "deploy", step: "Run smoke tests", conclusion: "failure" });
    const logTail = failedSteps[0].logTail as string;
    expect(logTail).toContain("smoke: GET /api/orders -> 503 Service Unavailable");
    expect(logTail).toContain("##[error]Process completed with exit code 1.");
    // Only the failed step's window: the deploy step's lines and the cleanup after it are not in it.
    expect(logTail).not.toContain("rolled out octo-app");
    expect(logTail).not.toContain("Post job cleanup");
    expect(logTail).not.toContain(token);
    expect(logTail).toContain("using credentials [redacted]");
    const text = result["content"][0]["text"] as string;
    expect(text).toContain("Failed: deploy > Run smoke tests");
    expect(text).toContain("smoke: GET /api/orders -> 503 Service Unavailable");

    // Re-run the failed run: a new task for attempt 2; the finished task of attempt 1 keeps its answer.
    const rerun = await client.callTool("rerun_run", { runId, failedJobsOnly: true });
    expect(rerun["resultType"]).toBe("task");
    expect(github.requestsTo("POST", new RegExp(`/runs/${runId}/rerun-failed-jobs$`))).toHaveLength(1);
    expect(rerun["taskId"]).not.toBe(taskId);
    github.update(
      runId,
      {
        status: "in_progress",
        runStartedAt: "2026-11-20T11:00:00Z",
        updatedAt: "2026-11-20T11:00:30Z",
        jobs: [{ ...failedDeployJob, status: "in_progress", conclusion: null, completed_at: null, steps: [] }],
      },
      2,
    );
    expect((await client.get(rerun["taskId"]))["status"]).toBe("working");
    const afterRerun = await client.get(taskId);
    expect(afterRerun["status"]).toBe("completed");
    expect(afterRerun["result"]).toEqual(result);

    // A replica with the same secret and nothing cached: the adapter itself reads the pinned attempt 1.
    const replica = cleanup.add(
      await startInProcessServer({
        adapters: [{ name: "github", adapter: createAdapter(github) }],
        secret: server.secret,
      }),
    );
    const replicaClient = recordingClient(replica.url);
    const attemptOneRead = github.requestsTo("GET", new RegExp(`/runs/${runId}/attempts/1$`)).length;
    const fromReplica = await replicaClient.get(taskId);
    expect(github.requestsTo("GET", new RegExp(`/runs/${runId}/attempts/1$`)).length).toBeGreaterThan(attemptOneRead);
    expect(fromReplica["status"]).toBe("completed");
    expect(fromReplica["result"]["isError"]).toBe(true);
    expect(fromReplica["result"]["structuredContent"]).toEqual(result["structuredContent"]);

    // The token went to GitHub's API only: never to the log host, never into an answer.
    expect(github.requests.every((request) => request.authorization?.includes(token))).toBe(true);
    expect(github.logRequests.length).toBeGreaterThan(0);
    expect(github.logRequests.every((request) => request.authorization === undefined)).toBe(true);
    client.expectNoneContains([token]);
    replicaClient.expectNoneContains([token]);
  });

  it("a rejected deployment ends completed with isError, not failed", async () => {
    const { github, client } = await serve();
    const runId = github.nextRunId;
    const taskId = (await client.callTool("deploy_app", { inputs: { environment: "production" } }))["taskId"] as string;
    github.update(runId, {
      status: "waiting",
      jobs: [buildJob("completed", "success"), { id: deployJobId, name: "deploy", status: "waiting" }],
      pendingDeployments: [{ environmentId: productionId, environmentName: "production", canApprove: true }],
    });
    const key = `deploy-${runId}-1-${productionId}-0`;
    expect(Object.keys((await client.get(taskId))["inputRequests"])).toEqual([key]);
    await client.update(taskId, { [key]: { action: "decline" } });
    expect(github.requestsTo("POST", /\/pending_deployments$/).map((review) => review.body.state)).toEqual([
      "rejected",
    ]);

    // GitHub ends a rejected run "failure"; the deploy job never ran, so it has no log to fetch.
    github.update(runId, {
      status: "completed",
      conclusion: "failure",
      jobs: [
        buildJob("completed", "success"),
        { id: deployJobId, name: "deploy", status: "completed", conclusion: "failure", steps: [] },
      ],
    });
    const finished = await client.get(taskId);
    expect(finished["status"]).toBe("completed");
    expect(finished["result"]["isError"]).toBe(true);
    expect(finished["result"]["structuredContent"]["conclusion"]).toBe("failure");
    client.expectNoneContains([token]);
  });

  it("a second wait on the same environment gets a new key, and the answered key stays dead", async () => {
    const { github, client } = await serve();
    const runId = github.nextRunId;
    const taskId = (await client.callTool("deploy_app", { inputs: { environment: "production" } }))["taskId"] as string;
    const waitForProduction = () =>
      github.update(runId, {
        status: "waiting",
        pendingDeployments: [{ environmentId: productionId, environmentName: "production", canApprove: true }],
      });
    const approve = { action: "accept", content: { approve: true } };

    waitForProduction();
    const firstKey = `deploy-${runId}-1-${productionId}-0`;
    expect(Object.keys((await client.get(taskId))["inputRequests"])).toEqual([firstKey]);
    await client.update(taskId, { [firstKey]: approve });
    github.update(runId, { status: "in_progress", jobs: [buildJob("in_progress")] });
    expect((await client.get(taskId))["status"]).toBe("working");

    // A later job of the same attempt deploys to production as well: a new request, under a new key.
    waitForProduction();
    const second = await client.get(taskId);
    const secondKey = `deploy-${runId}-1-${productionId}-1`;
    expect(second["status"]).toBe("input_required");
    expect(Object.keys(second["inputRequests"])).toEqual([secondKey]);

    // A late answer to the first key (a client retrying) must not review the second deployment.
    await client.update(taskId, { [firstKey]: { action: "accept", content: { approve: false } } });
    expect(github.requestsTo("POST", /\/pending_deployments$/)).toHaveLength(1);
    expect((await client.get(taskId))["status"]).toBe("input_required");

    await client.update(taskId, { [secondKey]: approve });
    expect(github.requestsTo("POST", /\/pending_deployments$/).map((review) => review.body.state)).toEqual([
      "approved",
      "approved",
    ]);
    client.expectNoneContains([token]);
  });

  it("a dismissed form leaves the deployment waiting, and a later approval is delivered; then it is not listed again", async () => {
    const { github, client } = await serve();
    const runId = github.nextRunId;
    const taskId = (await client.callTool("deploy_app", { inputs: { environment: "production" } }))["taskId"] as string;
    github.update(runId, {
      status: "waiting",
      pendingDeployments: [{ environmentId: productionId, environmentName: "production", canApprove: true }],
    });
    const key = `deploy-${runId}-1-${productionId}-0`;
    expect(Object.keys((await client.get(taskId))["inputRequests"])).toEqual([key]);

    await client.update(taskId, { [key]: { action: "cancel" } });
    expect(github.requestsTo("POST", /\/pending_deployments$/)).toHaveLength(0);
    expect(Object.keys((await client.get(taskId))["inputRequests"])).toEqual([key]);

    await client.update(taskId, { [key]: { action: "accept", content: { approve: true } } });
    expect(github.requestsTo("POST", /\/pending_deployments$/).map((review) => review.body.state)).toEqual([
      "approved",
    ]);
    // GitHub still lists the deployment as pending for a moment: the question is not asked again.
    const after = await client.get(taskId);
    expect(after["status"]).toBe("working");
    expect(after).not.toHaveProperty("inputRequests");
  });

  it("a log download that fails for a moment keeps the task working; the next read has the log", async () => {
    const { github, client } = await serve();
    const runId = github.nextRunId;
    const taskId = (await client.callTool("deploy_app", { inputs: { environment: "production" } }))["taskId"] as string;
    github.logs.set(deployJobId, deployLog);
    github.logFailures.set(deployJobId, 1);
    // The run finished just now: a log fault this soon after is waited out (past five minutes it is noted).
    const finishedAt = Date.now();
    github.update(runId, {
      status: "completed",
      conclusion: "failure",
      runStartedAt: new Date(finishedAt - 440_000).toISOString(),
      updatedAt: new Date(finishedAt).toISOString(),
      jobs: [buildJob("completed", "success"), failedDeployJob],
    });

    // A result kept for good must not lose the log to a passing fault.
    const during = await client.get(taskId);
    expect(during["status"]).toBe("working");
    expect(during).not.toHaveProperty("result");

    const after = await client.get(taskId);
    expect(after["status"]).toBe("completed");
    expect(after["result"]["isError"]).toBe(true);
    expect(after["result"]["structuredContent"]["failedSteps"][0]["logTail"]).toContain(
      "smoke: GET /api/orders -> 503 Service Unavailable",
    );
    expect(github.logRequests).toHaveLength(2);
    client.expectNoneContains([token]);
  });

  it("tasks/cancel sends GitHub's cancel; the task stays working until GitHub shows the run cancelled", async () => {
    const { github, client } = await serve();
    // Another run, running next to an unrelated one that must not be touched.
    const otherRunId = github.nextRunId;
    const otherTaskId = (await client.callTool("deploy_app", { inputs: { environment: "staging" } }))[
      "taskId"
    ] as string;
    const runId = github.nextRunId;
    const taskId = (await client.callTool("deploy_app", { inputs: { environment: "staging" } }))["taskId"] as string;
    const twoJobs: FakeJob[] = [
      buildJob("in_progress"),
      { id: 31_000_000_003, name: "e2e", status: "in_progress", started_at: "2026-11-20T10:00:05Z", steps: [] },
    ];
    github.update(runId, { status: "in_progress", runStartedAt: "2026-11-20T10:00:00Z", jobs: twoJobs });
    github.update(otherRunId, {
      status: "in_progress",
      runStartedAt: "2026-11-20T10:00:00Z",
      jobs: [buildJob("in_progress")],
    });

    const acknowledged = await client.cancel(taskId);
    expect(acknowledged["resultType"]).toBe("complete");
    const cancels = github.requestsTo("POST", /\/(cancel|force-cancel)$/);
    expect(cancels.map((request) => request.path)).toEqual([`/repos/octo-org/octo-app/actions/runs/${runId}/cancel`]);

    // GitHub accepted (202) but has not stopped anything yet.
    expect((await client.get(taskId))["status"]).toBe("working");

    // One job already stopped by the cancel, the other still stopping.
    github.update(runId, {
      jobs: [
        { ...twoJobs[0]!, status: "completed", conclusion: "cancelled", completed_at: "2026-11-20T10:01:10Z" },
        twoJobs[1]!,
      ],
    });
    github.run(runId).annotations.set(twoJobs[0]!.id, ["The run was canceled by @octocat."]);
    const stopping = await client.get(taskId);
    expect(stopping["status"]).toBe("working");
    expect(stopping["statusMessage"]).toBe("cancel requested: waiting for GitHub to stop 1 running job");

    github.update(runId, { status: "completed", conclusion: "cancelled", updatedAt: "2026-11-20T10:01:30Z" });
    const cancelled = await client.get(taskId);
    expect(cancelled["status"]).toBe("cancelled");
    expect(cancelled).not.toHaveProperty("result");

    // A second cancel of the finished task is acknowledged without another call to GitHub.
    expect((await client.cancel(taskId))["resultType"]).toBe("complete");
    expect(github.requestsTo("POST", /\/(cancel|force-cancel)$/)).toHaveLength(1);
    // Nobody force-cancels by default.
    expect(github.requestsTo("POST", /\/force-cancel$/)).toHaveLength(0);

    // The other run was not touched.
    const other = await client.get(otherTaskId);
    expect(other["status"]).toBe("working");
    expect(github.requestsTo("POST", new RegExp(`/runs/${otherRunId}/`))).toHaveLength(0);
    client.expectNoneContains([token]);
  });
});
