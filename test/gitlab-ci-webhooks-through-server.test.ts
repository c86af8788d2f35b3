import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { gitlabCi } from "@jobtasks/gitlab-ci";
import { startFakeGitlab, type FakeGitlab } from "./support/fake-gitlab.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { recordingClient } from "./support/recording-client.js";

/**
 * GitLab's hooks through a real jobtasks server: pipelines followed by task_status, then a Pipeline Hook
 * with the hook's secret token at /hooks/<instance> ends the waits at once; a wrong token changes nothing
 * and costs no GitLab request. A hook names the pipeline only, so it reaches every task of it, whichever
 * run of it each follows, and each answers its own. GitLab is the stateful fake of support/fake-gitlab.ts.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const token = "glpat-E2eHookTokenThatMustNeverLeak01";
const webhookSecret = "e2e-gitlab-hook-secret-0123456789";
const project = "acme/shop";

async function serve() {
  const gitlab = cleanup.add(startFakeGitlab(project));
  const adapter = gitlabCi(
    {
      token,
      webhookSecret,
      baseUrl: gitlab.baseUrl,
      projects: [project],
      // Long, so that every change a wait sees in this test comes from a delivery, not from its own polls.
      pollIntervalMs: 10_000,
      dispatcher: gitlab.agent,
    },
    {},
  );
  const server = cleanup.add(
    await startInProcessServer({ adapters: [{ name: "gitlab", adapter }], service: { snapshotCacheMs: 1000 } }),
  );
  return { gitlab, server, hooks: new URL("/hooks/", server.url) };
}

function pipelineOf(gitlab: FakeGitlab, id: number) {
  const pipeline = gitlab.pipelines.get(id);
  if (!pipeline) throw new Error(`no pipeline ${id}`);
  return pipeline;
}

/** GitLab's Pipeline Hook for the fake's pipeline, from the fixture. */
function pipelineHook(pipelineId: number, status: string): string {
  const payload = JSON.parse(
    readFileSync(new URL("../adapters/gitlab-ci/src/__fixtures__/hook-pipeline-success.json", import.meta.url), "utf8"),
  ) as { object_attributes: Record<string, unknown> };
  Object.assign(payload.object_attributes, { id: pipelineId, status });
  return JSON.stringify(payload);
}

async function deliver(hooks: URL, body: string, headers: { token?: string; eventId?: string } = {}): Promise<number> {
  const response = await fetch(new URL("gitlab", hooks), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-gitlab-event": "Pipeline Hook",
      "x-gitlab-event-uuid": headers.eventId ?? "6a0f3c1e-1d2b-4e8f-9a7c-3b5d8e2f1a40",
      "x-gitlab-token": headers.token ?? webhookSecret,
    },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

function ranFrom(started: string, finished?: string) {
  const at = (time: string) => `2026-11-30T${time}.000Z`;
  return { created_at: at(started), started_at: at(started), finished_at: finished ? at(finished) : null };
}

const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe("GitLab hooks through the server", () => {
  it("a Pipeline Hook with the secret token ends a waiting task_status at once; a wrong token does nothing", async () => {
    const { gitlab, server, hooks } = await serve();
    const agent = recordingClient(server.url);
    const taskId = (await agent.callTool("create_pipeline", { project }))["taskId"] as string;
    const pipeline = pipelineOf(gitlab, 500_001);
    pipeline.status = "running";
    pipeline.jobs = [{ id: 9001, name: "build", stage: "build", status: "running", ...ranFrom("10:00:00") }];

    const host = recordingClient(server.url, { tasks: false });
    let answered = false;
    const waiting = host.callTool("task_status", { taskId, waitSeconds: 20 }).finally(() => (answered = true));
    await pause(300);

    // The pipeline succeeds upstream.
    pipeline.status = "success";
    pipeline.jobs[0] = { ...pipeline.jobs[0]!, status: "success", ...ranFrom("10:00:00", "10:03:00") };
    const success = pipelineHook(500_001, "success");

    // A wrong token, one of another length and none: 401, no GitLab request, the wait goes on.
    const requestsBefore = gitlab.requests.length;
    expect(await deliver(hooks, success, { token: webhookSecret.replace(/.$/, "X") })).toBe(401);
    expect(await deliver(hooks, success, { token: "short" })).toBe(401);
    expect(await deliver(hooks, success, { token: "" })).toBe(401);
    await pause(200);
    expect(gitlab.requests.length).toBe(requestsBefore);
    expect(answered).toBe(false);

    const deliveredAt = Date.now();
    expect(await deliver(hooks, success, { eventId: "e-success" })).toBe(202);
    const status = (await waiting) as { structuredContent: Record<string, any> };
    expect(Date.now() - deliveredAt).toBeLessThan(1000);
    expect(status.structuredContent["status"]).toBe("completed");

    // The same event again: 2xx, no effect, no GitLab request.
    const requestsAfter = gitlab.requests.length;
    expect(await deliver(hooks, success, { eventId: "e-success" })).toBe(200);
    expect((await agent.get(taskId))["status"]).toBe("completed");
    expect(gitlab.requests.length).toBe(requestsAfter);
    agent.expectNoneContains([token, webhookSecret]);
    host.expectNoneContains([token, webhookSecret]);
  });

  it("one Pipeline Hook wakes the tasks of two runs of one pipeline, and each answers its own run", async () => {
    const { gitlab, server, hooks } = await serve();
    const agent = recordingClient(server.url);
    await agent.callTool("create_pipeline", { project });
    const pipeline = pipelineOf(gitlab, 500_001);
    pipeline.status = "running";
    pipeline.jobs = [
      { id: 9001, name: "build", stage: "build", status: "success", ...ranFrom("10:00:00", "10:01:00") },
      { id: 9002, name: "rspec", stage: "test", status: "running", ...ranFrom("10:01:05") },
    ];
    // A task of the first run (its newest job is 9002), waiting in task_status.
    const firstRun = (await agent.callTool("watch_pipeline", { project, pipelineId: 500_001 }))["taskId"] as string;
    const host = recordingClient(server.url, { tasks: false });
    const firstWait = host.callTool("task_status", { taskId: firstRun, waitSeconds: 20 });
    await pause(300);

    // Upstream, unannounced: rspec fails, and minutes later someone retries it on GitLab. A task of that
    // second run of the same pipeline (its newest job is 9003) waits too.
    Object.assign(pipeline.jobs[1]!, { status: "failed", failure_reason: "script_failure", trace: "1 failed\n" });
    Object.assign(pipeline.jobs[1]!, { ...ranFrom("10:01:05", "10:02:00"), retried: true });
    pipeline.jobs.push({ id: 9003, name: "rspec", stage: "test", status: "running", ...ranFrom("10:09:30") });
    const secondRun = (await agent.callTool("watch_pipeline", { project, pipelineId: 500_001 }))["taskId"] as string;
    expect(secondRun).not.toBe(firstRun);
    const secondWait = host.callTool("task_status", { taskId: secondRun, waitSeconds: 20 });
    await pause(300);

    // The retry succeeds, and GitLab's Pipeline Hook says so: it names the pipeline, not a run.
    pipeline.jobs[2] = { ...pipeline.jobs[2]!, status: "success", ...ranFrom("10:09:30", "10:11:00") };
    pipeline.status = "success";
    const deliveredAt = Date.now();
    expect(await deliver(hooks, pipelineHook(500_001, "success"), { eventId: "e-retry-success" })).toBe(202);
    const [first, second] = (await Promise.all([firstWait, secondWait])) as Array<{ structuredContent: any }>;
    expect(Date.now() - deliveredAt).toBeLessThan(1000);
    expect(first!.structuredContent["status"]).toBe("completed");
    expect(second!.structuredContent["status"]).toBe("completed");
    // The first run failed, whatever the pipeline shows now; the second is the pipeline's success.
    const firstResult = (await agent.get(firstRun))["result"];
    expect(firstResult["isError"]).toBe(true);
    expect(firstResult["structuredContent"]).toMatchObject({ status: "failed", failedStages: ["test"] });
    const secondResult = (await agent.get(secondRun))["result"];
    expect(secondResult["isError"]).toBeUndefined();
    expect(secondResult["structuredContent"]).toMatchObject({ pipelineId: 500_001, status: "success" });
    agent.expectNoneContains([token, webhookSecret]);
  });
});
