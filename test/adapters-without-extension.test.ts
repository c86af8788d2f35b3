import { afterEach, describe, expect, it } from "vitest";
import { githubActions } from "@jobtasks/github-actions";
import { awsBatch } from "@jobtasks/aws-batch";
import { startFakeGithub, type FakeGithub, type FakeJob } from "./support/fake-github-api.js";
import { fakeAccount, startFakeAwsBatch, type FakeAwsBatch } from "./support/fake-aws-batch-api.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { connectV1Http, textOf, type V1Connection, type V1ToolResult } from "./support/v1-client.js";

/**
 * The GitHub Actions and AWS Batch adapters behind a real server, used by the v1 SDK Client (no tasks
 * extension), against the same loopback fakes as their tasks tests: the run or job is followed with
 * task_status, its approval answered with task_answer, and it is stopped with task_cancel.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const token = "ghp_E2eHandlesTokenNeverLeaksAbCdEf0123456789";
const productionId = 161088068;
const credentials = {
  accessKeyId: "AKIAE2EHANDLES000001",
  secretAccessKey: "e2e/Handles/Secret/Never/Leaks/0123456789",
};

const answers: string[] = [];
async function call(client: V1Connection, name: string, args: Record<string, unknown>): Promise<V1ToolResult> {
  const result = await client.callTool(name, args);
  answers.push(JSON.stringify(result));
  return result;
}
afterEach(() => {
  for (const answer of answers.splice(0)) {
    for (const secret of [token, credentials.accessKeyId, credentials.secretAccessKey, fakeAccount])
      expect(answer).not.toContain(secret);
  }
});

async function serveGithub(): Promise<{ github: FakeGithub; client: V1Connection }> {
  const github = cleanup.add(await startFakeGithub());
  const adapter = githubActions(
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
      pollIntervalMs: 50,
      lookupPollMs: 5,
      watchCommitTimeoutMs: 2_000,
      requestRetries: 0,
    },
    {},
  );
  const server = cleanup.add(await startInProcessServer({ adapters: [{ name: "github", adapter }] }));
  return { github, client: cleanup.add(await connectV1Http(server.url)) };
}

const deployJobId = 31_000_000_002;
const buildJob: FakeJob = { id: 31_000_000_001, name: "build", status: "completed", conclusion: "success", steps: [] };

describe("GitHub Actions for a client without the tasks extension", () => {
  it("dispatch → handle; the approval through task_answer becomes GitHub's review; the failed run ends isError", async () => {
    const { github, client } = await serveGithub();
    const tools = await client.listTools();
    expect(tools.find((tool) => tool.name === "deploy_app")).not.toHaveProperty("outputSchema");
    const runId = github.nextRunId;
    const handle = await call(client, "deploy_app", { inputs: { environment: "production" } });
    expect(handle.isError).not.toBe(true);
    expect(handle.structuredContent).toMatchObject({ status: "working", pollIntervalMs: 50 });
    const taskId = handle.structuredContent!["taskId"] as string;
    expect(taskId).not.toContain("octo-app");

    github.update(runId, {
      status: "waiting",
      jobs: [buildJob, { id: deployJobId, name: "deploy", status: "waiting" }],
      pendingDeployments: [{ environmentId: productionId, environmentName: "production", canApprove: true }],
    });
    const asked = await call(client, "task_status", { taskId, waitSeconds: 10 });
    expect(asked.structuredContent?.["status"]).toBe("input_required");
    const key = `deploy-${runId}-1-${productionId}-0`;
    expect(Object.keys(asked.structuredContent?.["inputRequests"])).toEqual([key]);
    expect(textOf(asked)).toContain(`"key":"${key}"`);

    const bad = await call(client, "task_answer", { taskId, key, action: "accept", content: { approve: "sure" } });
    expect(bad.isError).toBe(true);
    expect(github.requestsTo("POST", /\/pending_deployments$/)).toHaveLength(0);
    const sent = await call(client, "task_answer", {
      taskId,
      key,
      action: "accept",
      content: { approve: true, comment: "ship" },
    });
    expect(sent.structuredContent?.["sent"]).toBe(true);
    expect(github.requestsTo("POST", /\/pending_deployments$/).map((review) => review.body)).toEqual([
      { environment_ids: [productionId], state: "approved", comment: "ship" },
    ]);

    github.update(runId, {
      status: "completed",
      conclusion: "failure",
      jobs: [buildJob, { id: deployJobId, name: "deploy", status: "completed", conclusion: "failure", steps: [] }],
    });
    const finished = await call(client, "task_status", { taskId, waitSeconds: 10 });
    expect(finished.structuredContent).toMatchObject({ status: "completed", result: { runId, conclusion: "failure" } });
    expect(finished.isError).toBe(true);
  });

  it("task_cancel sends GitHub's cancel; task_status then shows the run cancelled", async () => {
    const { github, client } = await serveGithub();
    const runId = github.nextRunId;
    const taskId = (await call(client, "deploy_app", { inputs: { environment: "staging" } })).structuredContent![
      "taskId"
    ] as string;
    github.update(runId, { status: "in_progress", jobs: [{ ...buildJob, status: "in_progress", conclusion: null }] });
    const requested = await call(client, "task_cancel", { taskId });
    expect(requested.structuredContent).toMatchObject({ cancelRequested: true });
    expect(github.requestsTo("POST", /\/cancel$/).map((request) => request.path)).toEqual([
      `/repos/octo-org/octo-app/actions/runs/${runId}/cancel`,
    ]);
    github.update(runId, { status: "completed", conclusion: "cancelled" });
    expect((await call(client, "task_status", { taskId, waitSeconds: 10 })).structuredContent?.["status"]).toBe(
      "cancelled",
    );
  });
});

async function serveBatch(): Promise<{ batch: FakeAwsBatch; client: V1Connection }> {
  const batch = cleanup.add(await startFakeAwsBatch());
  const adapter = awsBatch(
    {
      region: "us-east-1",
      endpoint: batch.url,
      credentials,
      templates: [
        {
          tool: "render_frames",
          description: "Render a Blender scene",
          jobQueue: "render-queue",
          jobDefinition: "blender-render:3",
          parameters: { scene: { pattern: "[a-z0-9/_-]+\\.blend" } },
        },
      ],
      pollIntervalMs: 1_000,
      describeBatchWindowMs: 5,
      submitsPerSecond: 50,
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
      duplicateCheckDelayMs: 10,
    },
    {},
  );
  const server = cleanup.add(await startInProcessServer({ adapters: [{ name: "batch", adapter }] }));
  return { batch, client: cleanup.add(await connectV1Http(server.url)) };
}

describe("AWS Batch for a client without the tasks extension", () => {
  it("submit → handle; task_status follows the queue states to the exit code; a non-zero exit is isError", async () => {
    const { batch, client } = await serveBatch();
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      "render_frames",
      "watch_job",
      "task_status",
      "task_answer",
      "task_cancel",
    ]);
    expect(tools[0]).not.toHaveProperty("outputSchema");
    const handle = await call(client, "render_frames", { parameters: { scene: "shots/intro.blend" } });
    expect(handle.structuredContent).toMatchObject({
      status: "working",
      statusMessage: expect.stringMatching(/^SUBMITTED/),
    });
    const taskId = handle.structuredContent!["taskId"] as string;
    const job = [...batch.jobs.values()][0]!;
    expect(taskId).not.toContain(job.jobId);

    batch.update(job.jobId, { status: "RUNNING", startedAt: Date.now() - 60_000 });
    const still = await call(client, "task_status", { taskId, waitSeconds: 0.3 });
    expect(still.structuredContent).toMatchObject({ status: "working", statusMessage: "RUNNING" });
    batch.update(job.jobId, {
      status: "FAILED",
      statusReason: "Essential container in task exited",
      exitCode: 137,
      stoppedAt: Date.now(),
    });
    const finished = await call(client, "task_status", { taskId, waitSeconds: 10 });
    expect(finished.structuredContent).toMatchObject({
      status: "completed",
      result: { status: "FAILED", exitCode: 137 },
    });
    expect(finished.isError).toBe(true);
  });

  it("task_cancel sends TerminateJob", async () => {
    const { batch, client } = await serveBatch();
    const taskId = (await call(client, "render_frames", { parameters: { scene: "shots/intro.blend" } }))
      .structuredContent!["taskId"] as string;
    const job = [...batch.jobs.values()][0]!;
    batch.update(job.jobId, { status: "RUNNING", startedAt: Date.now() });
    expect((await call(client, "task_cancel", { taskId })).structuredContent).toMatchObject({ cancelRequested: true });
    expect(batch.callsTo("terminatejob").map((terminate) => terminate.body["jobId"])).toEqual([job.jobId]);
  });
});
