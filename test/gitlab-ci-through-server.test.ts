import { afterEach, describe, expect, it } from "vitest";
import { gitlabCi } from "@jobtasks/gitlab-ci";
import { startFakeGitlab, type FakeGitlab } from "./support/fake-gitlab.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { recordingClient } from "./support/recording-client.js";

/**
 * The GitLab CI adapter behind a real jobtasks server, used the way an agent uses it: create a pipeline,
 * poll tasks/get, play a manual job and approve a deployment with tasks/update, read the failed job's trace
 * in the result, retry, cancel. GitLab is a stateful fake on an undici MockAgent (support/fake-gitlab.ts)
 * reached through the adapter's injected dispatcher.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const token = "glpat-E2eTokenThatMustNeverLeak0123";
const project = "acme/shop";

async function serve() {
  const gitlab = cleanup.add(startFakeGitlab(project));
  const adapter = gitlabCi(
    { token, baseUrl: gitlab.baseUrl, projects: [project], pollIntervalMs: 1_000, dispatcher: gitlab.agent },
    {},
  );
  const server = cleanup.add(await startInProcessServer({ adapters: [{ name: "gitlab", adapter }] }));
  return { gitlab, client: recordingClient(server.url) };
}

function pipelineOf(gitlab: FakeGitlab, id: number) {
  const pipeline = gitlab.pipelines.get(id);
  if (!pipeline) throw new Error(`no pipeline ${id}`);
  return pipeline;
}

describe("GitLab CI through the server", () => {
  it("create, a manual job and an approval answered, a failing job with its trace, then a retry that succeeds", async () => {
    const { gitlab, client } = await serve();

    const created = await client.callTool("create_pipeline", {
      project,
      ref: "main",
      variables: { DEPLOY_TARGET: "production" },
    });
    expect(created).toMatchObject({ resultType: "task", status: "working", pollIntervalMs: 1_000 });
    const taskId = created["taskId"] as string;
    // The task id is opaque: no project path or pipeline id in clear.
    expect(taskId).not.toContain("acme");
    expect(taskId).not.toContain("500001");
    const [creation] = gitlab.requestsTo("POST", /\/pipeline$/);
    expect(creation?.body).toEqual({
      ref: "main",
      variables: [{ key: "DEPLOY_TARGET", value: "production", variable_type: "env_var" }],
    });
    expect(creation?.headers["private-token"]).toBe(token);

    const pipeline = pipelineOf(gitlab, 500_001);
    pipeline.status = "manual";
    pipeline.jobs = [
      {
        id: 9001,
        name: "build",
        stage: "build",
        status: "success",
        artifacts: [{ file_type: "archive", filename: "artifacts.zip", size: 2048 }],
      },
      { id: 9002, name: "smoke staging", stage: "deploy", status: "manual" },
      { id: 9003, name: "deploy production", stage: "deploy", status: "manual" },
    ];
    pipeline.deployments = [{ id: 77, jobId: 9003, environment: "production", approvals: 0 }];
    const waiting = await client.get(taskId);
    expect(waiting["status"]).toBe("input_required");
    expect(Object.keys(waiting["inputRequests"]).sort()).toEqual([
      "approve-deployment-77-after-0-approvals",
      "play-job-9002",
    ]);

    // One answer now, the other later: partial answers are allowed and keys stay stable meanwhile.
    await client.update(taskId, { "play-job-9002": { action: "accept", content: { play: true } } });
    expect(gitlab.requestsTo("POST", /\/jobs\/9002\/play$/)).toHaveLength(1);
    pipeline.jobs[1]!.status = "success";
    const stillWaiting = await client.get(taskId);
    expect(Object.keys(stillWaiting["inputRequests"])).toEqual(["approve-deployment-77-after-0-approvals"]);
    await client.update(taskId, {
      "approve-deployment-77-after-0-approvals": { action: "accept", content: { approve: true, comment: "ship it" } },
    });
    expect(gitlab.requestsTo("POST", /\/deployments\/77\/approval$/).map((request) => request.body)).toEqual([
      { status: "approved", comment: "ship it" },
    ]);
    // A second answer to the same key is ignored: the deployment is no longer outstanding once it moved on.
    pipeline.deployments = [];
    pipeline.status = "running";
    await client.update(taskId, {
      "approve-deployment-77-after-0-approvals": { action: "accept", content: { approve: true } },
    });
    expect(gitlab.requestsTo("POST", /\/deployments\/77\/approval$/)).toHaveLength(1);

    pipeline.status = "failed";
    pipeline.jobs[2] = {
      id: 9003,
      name: "deploy production",
      stage: "deploy",
      status: "failed",
      failure_reason: "script_failure",
      trace: `\u001b[32;1m$ ./deploy.sh\u001b[0;m\nusing ${token}\nhealth check failed: 503\n\u001b[31;1mERROR: Job failed: exit code 1\n\u001b[0;m\n`,
    };
    const failed = await client.get(taskId);
    expect(failed["status"]).toBe("completed");
    expect(failed["result"]["isError"]).toBe(true);
    const result = failed["result"]["structuredContent"];
    expect(result["failedStages"]).toEqual(["deploy"]);
    expect(result["failedJobs"][0]).toMatchObject({ name: "deploy production", failureReason: "script_failure" });
    expect(result["failedJobs"][0]["traceTail"]).toContain("health check failed: 503");
    expect(result["artifacts"]).toEqual([
      { jobId: 9001, jobName: "build", fileType: "archive", filename: "artifacts.zip", sizeInBytes: 2048 },
    ]);

    // Retry: a new task that does not report the old failure, then the retried pipeline's own end.
    const retried = await client.callTool("retry_pipeline", { project, pipelineId: 500_001 });
    const retryTaskId = retried["taskId"] as string;
    expect(retried["status"]).toBe("working");
    expect(retried["statusMessage"]).toContain("retry requested");
    pipeline.status = "success";
    pipeline.jobs[2] = { id: 9004, name: "deploy production", stage: "deploy", status: "success" };
    const succeeded = await client.get(retryTaskId);
    expect(succeeded["status"]).toBe("completed");
    expect(succeeded["result"]["isError"]).toBeUndefined();
    // The first task's end stays as it was.
    expect((await client.get(taskId))["result"]["isError"]).toBe(true);

    client.expectNoneContains([token]);
  });

  it("a declined manual job keeps waiting, and a later play is delivered; the played job is not listed meanwhile", async () => {
    const { gitlab, client } = await serve();
    const taskId = (await client.callTool("create_pipeline", { project, ref: "main" }))["taskId"] as string;
    const pipeline = pipelineOf(gitlab, 500_001);
    pipeline.status = "manual";
    pipeline.jobs = [
      { id: 9002, name: "smoke staging", stage: "deploy", status: "manual" },
      { id: 9003, name: "deploy production", stage: "deploy", status: "manual" },
    ];
    expect(Object.keys((await client.get(taskId))["inputRequests"]).sort()).toEqual(["play-job-9002", "play-job-9003"]);

    await client.update(taskId, { "play-job-9002": { action: "decline" } });
    expect(gitlab.requestsTo("POST", /\/play$/)).toHaveLength(0);
    expect(Object.keys((await client.get(taskId))["inputRequests"]).sort()).toEqual(["play-job-9002", "play-job-9003"]);

    await client.update(taskId, { "play-job-9002": { action: "accept", content: { play: true } } });
    expect(gitlab.requestsTo("POST", /\/jobs\/9002\/play$/)).toHaveLength(1);
    // GitLab still shows the job manual for a moment: the answered question is not asked again.
    const afterPlay = await client.get(taskId);
    expect(Object.keys(afterPlay["inputRequests"])).toEqual(["play-job-9003"]);

    await client.update(taskId, { "play-job-9003": { action: "accept", content: { play: true } } });
    const waiting = await client.get(taskId);
    expect(waiting["status"]).toBe("working");
    expect(waiting).not.toHaveProperty("inputRequests");
    expect(gitlab.requestsTo("POST", /\/play$/)).toHaveLength(2);
  });

  it("an approval GitLab refuses with 400 reaches the caller saying why, and the question stays", async () => {
    const { gitlab, client } = await serve();
    const taskId = (await client.callTool("create_pipeline", { project, ref: "main" }))["taskId"] as string;
    const pipeline = pipelineOf(gitlab, 500_001);
    pipeline.status = "manual";
    pipeline.jobs = [{ id: 9003, name: "deploy production", stage: "deploy", status: "manual" }];
    pipeline.deployments = [{ id: 77, jobId: 9003, environment: "production", approvals: 0 }];
    const key = "approve-deployment-77-after-0-approvals";
    expect(Object.keys((await client.get(taskId))["inputRequests"])).toContain(key);
    const approve = { [key]: { action: "accept", content: { approve: true } } };

    gitlab.approvalRefusal = {
      status: 400,
      message: "You don't have permission to approve this deployment. Contact the project or group owner for help.",
    };
    const refused = await client.call("tasks/update", { taskId, inputResponses: approve });
    expect(refused?.error?.code).toBe(-32603);
    expect(refused?.error?.message).toBe(
      "Could not deliver the answer: GitLab refused the approval of the deployment: HTTP 400: You don't have permission to approve this deployment. Contact the project or group owner for help.",
    );
    expect(Object.keys((await client.get(taskId))["inputRequests"])).toContain(key);

    // Someone else decided meanwhile: GitLab's 400 for that is an answer, and the key is closed.
    gitlab.approvalRefusal = { status: 400, message: "This deployment is not waiting for approvals." };
    await client.update(taskId, approve);
    expect(Object.keys((await client.get(taskId))["inputRequests"] ?? {})).not.toContain(key);
    expect(gitlab.requestsTo("POST", /\/deployments\/77\/approval$/)).toHaveLength(2);
    client.expectNoneContains([token, gitlab.baseUrl]);
  });

  it("cancel: canceling stays working, canceled is cancelled", async () => {
    const { gitlab, client } = await serve();
    const created = await client.callTool("create_pipeline", { project });
    const taskId = created["taskId"] as string;
    pipelineOf(gitlab, 500_001).status = "running";
    await client.cancel(taskId);
    expect(gitlab.requestsTo("POST", /\/pipelines\/500001\/cancel$/)).toHaveLength(1);
    const canceling = await client.get(taskId);
    expect(canceling).toMatchObject({ status: "working", statusMessage: expect.stringContaining("cancel requested") });
    pipelineOf(gitlab, 500_001).status = "canceled";
    expect((await client.get(taskId))["status"]).toBe("cancelled");
    client.expectNoneContains([token]);
  });

  it("cancel of a pipeline waiting at a manual job: GitLab ignores it, and the caller is told so", async () => {
    const { gitlab, client } = await serve();
    const created = await client.callTool("create_pipeline", { project });
    const taskId = created["taskId"] as string;
    const pipeline = pipelineOf(gitlab, 500_001);
    pipeline.status = "manual";
    pipeline.jobs = [
      { id: 9001, name: "build", stage: "build", status: "success" },
      { id: 9002, name: "deploy", stage: "deploy", status: "manual" },
    ];
    const cancelled = await client.call("tasks/cancel", { taskId });
    expect(gitlab.requestsTo("POST", /\/pipelines\/500001\/cancel$/)).toHaveLength(1);
    expect(cancelled?.error?.message).toContain("GitLab ignored the cancel: pipeline 500001 waits at a manual job");
    expect((await client.get(taskId))["status"]).toBe("input_required");
    client.expectNoneContains([token]);
  });

  it("watch by commit; a project outside the allow-list and a commit without pipelines are refused naming the field", async () => {
    const { gitlab, client } = await serve();
    await client.callTool("create_pipeline", { project });
    const watched = await client.callTool("watch_pipeline", { project, sha: "d6f0a1b2" });
    expect(watched["resultType"]).toBe("task");

    const outside = await client.call("tools/call", {
      name: "create_pipeline",
      arguments: { project: "someone/else" },
    });
    expect(outside?.error?.code).toBe(-32602);
    expect(outside?.error?.message).toContain("project");
    expect(gitlab.requestsTo("POST", /./)).toHaveLength(1);

    const noPipeline = await client.call("tools/call", {
      name: "watch_pipeline",
      arguments: { project, sha: "0123abcd" },
    });
    expect(noPipeline?.error?.code).toBe(-32602);
    expect(noPipeline?.error?.message).toContain("sha");
  });
});

describe("GitLab CI through the server: a retried pipeline", () => {
  /** A job's GitLab timestamps on 2026-11-30 (UTC): created when it started, finished at `finished` if given. */
  function ranFrom(started: string, finished?: string) {
    const at = (time: string) => `2026-11-30T${time}.000Z`;
    return { created_at: at(started), started_at: at(started), finished_at: finished ? at(finished) : null };
  }

  /** A server over `gitlab` with a fresh adapter: with the same secret, a restarted process (empty caches). */
  async function serveOver(gitlab: FakeGitlab, secret?: string) {
    const adapter = gitlabCi(
      { token, baseUrl: gitlab.baseUrl, projects: [project], pollIntervalMs: 1_000, dispatcher: gitlab.agent },
      {},
    );
    const server = cleanup.add(
      await startInProcessServer({ adapters: [{ name: "gitlab", adapter }], ...(secret ? { secret } : {}) }),
    );
    return { server, client: recordingClient(server.url) };
  }

  it("each task keeps its own run: a watch after the retry follows the retry, and the first task keeps its failure after a restart", async () => {
    const gitlab = cleanup.add(startFakeGitlab(project));
    const { server, client } = await serveOver(gitlab);
    await client.callTool("create_pipeline", { project });
    const pipeline = pipelineOf(gitlab, 500_001);
    pipeline.jobs = [
      { id: 9001, name: "build", stage: "build", status: "success", ...ranFrom("10:00:00", "10:01:00") },
      {
        id: 9002,
        name: "rspec",
        stage: "test",
        status: "failed",
        failure_reason: "script_failure",
        trace: "1 failed\n",
        ...ranFrom("10:01:05", "10:02:00"),
      },
    ];
    pipeline.status = "failed";
    const before = await client.callTool("watch_pipeline", { project, pipelineId: 500_001 });
    const beforeTaskId = before["taskId"] as string;
    expect((await client.get(beforeTaskId))["result"]["isError"]).toBe(true);

    // Retried on GitLab itself, minutes after the failure: the failed job is replaced by a new one, and the
    // pipeline runs again.
    pipeline.jobs[1]!.retried = true;
    pipeline.jobs.push({ id: 9003, name: "rspec", stage: "test", status: "running", ...ranFrom("10:09:30") });
    pipeline.status = "running";
    const after = await client.callTool("watch_pipeline", { project, pipelineId: 500_001 });
    expect(after).toMatchObject({ status: "working", statusMessage: "test: rspec (1 of 2 jobs done)" });
    const afterTaskId = after["taskId"] as string;

    pipeline.jobs[2]!.status = "success";
    pipeline.status = "success";
    const succeeded = await client.get(afterTaskId);
    expect(succeeded["status"]).toBe("completed");
    expect(succeeded["result"]["isError"]).toBeUndefined();
    expect(succeeded["result"]["structuredContent"]).toMatchObject({ pipelineId: 500_001, iid: 1, status: "success" });
    expect((await client.get(beforeTaskId))["result"]["isError"]).toBe(true);

    // A fresh process remembers nothing: the first task still answers the run it followed.
    const restarted = await serveOver(gitlab, server.secret);
    const old = await restarted.client.get(beforeTaskId);
    expect(old["status"]).toBe("completed");
    expect(old["result"]["isError"]).toBe(true);
    expect(old["result"]["structuredContent"]).toMatchObject({ status: "failed", failedStages: ["test"] });
    expect(old["statusMessage"]).toContain("retried since");
    expect((await restarted.client.get(afterTaskId))["result"]["isError"]).toBeUndefined();
    client.expectNoneContains([token]);
    restarted.client.expectNoneContains([token]);
  });

  it("a job GitLab retries by itself (retry:) keeps the task following the pipeline to its end, also after a restart", async () => {
    const gitlab = cleanup.add(startFakeGitlab(project));
    const { server, client } = await serveOver(gitlab);
    await client.callTool("create_pipeline", { project });
    const pipeline = pipelineOf(gitlab, 500_001);
    pipeline.jobs = [
      { id: 9001, name: "build", stage: "build", status: "success", ...ranFrom("10:00:00", "10:01:00") },
      { id: 9002, name: "deploy", stage: "deploy", status: "running", ...ranFrom("10:01:05") },
    ];
    pipeline.status = "running";
    const watched = await client.callTool("watch_pipeline", { project, pipelineId: 500_001 });
    const taskId = watched["taskId"] as string;

    // The deploy job fails, and its `retry:` makes GitLab create the retry in the same moment: the pipeline
    // runs on, the task's run with it.
    Object.assign(pipeline.jobs[1]!, {
      status: "failed",
      failure_reason: "script_failure",
      retried: true,
      finished_at: "2026-11-30T10:02:00.400Z",
    });
    pipeline.jobs.push({
      id: 9003,
      name: "deploy",
      stage: "deploy",
      status: "pending",
      created_at: "2026-11-30T10:02:00.900Z",
    });
    const waiting = await client.get(taskId);
    expect(waiting).toMatchObject({ status: "working", statusMessage: "running (deploy: deploy; 1 of 2 jobs done)" });

    Object.assign(pipeline.jobs[2]!, ranFrom("10:02:04", "10:03:00"), { status: "success" });
    pipeline.status = "success";
    const succeeded = await client.get(taskId);
    expect(succeeded["status"]).toBe("completed");
    expect(succeeded["result"]["isError"]).toBeUndefined();
    expect(succeeded["statusMessage"]).not.toContain("retried since");

    const restarted = await serveOver(gitlab, server.secret);
    const again = await restarted.client.get(taskId);
    expect(again["status"]).toBe("completed");
    expect(again["result"]["isError"]).toBeUndefined();
    expect(again["result"]["structuredContent"]).toMatchObject({ status: "success" });
    client.expectNoneContains([token]);
    restarted.client.expectNoneContains([token]);
  });
});
