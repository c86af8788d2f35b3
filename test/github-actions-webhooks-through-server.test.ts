import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { createHmac } from "node:crypto";
import { githubActions } from "@jobtasks/github-actions";
import { startFakeGithub, type FakeGithub } from "./support/fake-github-api.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { recordingClient } from "./support/recording-client.js";

/**
 * GitHub's webhook deliveries through a real jobtasks server: a run followed by task_status, then a
 * signed workflow_run delivery to /hooks/<instance> ends the wait at once, with one status read of the
 * run; forged, replayed, oversized and misaddressed deliveries change nothing. GitHub is the loopback fake.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const token = "ghp_E2eWebhookTokenThatMustNeverLeak0123456";
const webhookSecret = "e2e-webhook-secret-0123456789abcdef";

async function serve() {
  const github = cleanup.add(await startFakeGithub());
  const adapter = githubActions(
    {
      token,
      webhookSecret,
      baseUrl: github.url,
      workflows: [{ tool: "run_ci", repository: "octo-org/octo-app", workflow: "ci.yml", ref: "main" }],
      // Long, so that every change the wait sees in this test comes from a delivery, not from its own polls.
      pollIntervalMs: 10_000,
      requestRetries: 0,
    },
    {},
  );
  const server = cleanup.add(
    await startInProcessServer({ adapters: [{ name: "github", adapter }], service: { snapshotCacheMs: 1000 } }),
  );
  return { github, server, hooks: new URL("/hooks/", server.url) };
}

/** GitHub's workflow_run delivery for the fake's run, as GitHub spells the owner (capitalised). */
function workflowRunDelivery(runId: number, status: string, conclusion: string | null, updatedAt: string): string {
  const payload = JSON.parse(
    readFileSync(
      new URL("../adapters/github-actions/src/__fixtures__/webhook-workflow-run-completed.json", import.meta.url),
      "utf8",
    ),
  ) as { action: string; workflow_run: Record<string, unknown> };
  payload.action = status === "completed" ? "completed" : "in_progress";
  Object.assign(payload.workflow_run, { id: runId, status, conclusion, updated_at: updatedAt });
  return JSON.stringify(payload);
}

/** GitHub's X-Hub-Signature-256: the body's HMAC-SHA256 under the webhook's secret, in hex. */
function sign(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** A delivery of another fixture, for the fake's run. */
function fixtureDelivery(name: string, change: (payload: Record<string, any>) => void): string {
  const payload = JSON.parse(
    readFileSync(new URL(`../adapters/github-actions/src/__fixtures__/${name}`, import.meta.url), "utf8"),
  ) as Record<string, any>;
  change(payload);
  return JSON.stringify(payload);
}

async function deliver(
  hooks: URL,
  instance: string,
  body: string,
  headers: { deliveryId?: string; signature?: string; event?: string } = {},
): Promise<number> {
  const response = await fetch(new URL(instance, hooks), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": headers.event ?? "workflow_run",
      "x-github-delivery": headers.deliveryId ?? "9f1c3a52-cf0e-11f0-8a2b-0242ac120002",
      "x-hub-signature-256": headers.signature ?? sign(webhookSecret, body),
    },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

const statusReads = (github: FakeGithub, runId: number) =>
  github.requestsTo("GET", new RegExp(`/actions/runs/${runId}/attempts/1$`)).length;

describe("GitHub webhooks through the server", () => {
  it("a signed workflow_run completed ends a waiting task_status at once; forged, replayed, huge and misaddressed deliveries do nothing", async () => {
    const { github, server, hooks } = await serve();
    const runId = github.nextRunId;
    const agent = recordingClient(server.url);
    const created = await agent.callTool("run_ci", {});
    const taskId = created["taskId"] as string;
    github.update(runId, { status: "in_progress", updatedAt: "2026-11-20T10:01:00Z" });

    // A host without the extension follows the handle with task_status, which waits.
    const host = recordingClient(server.url, { tasks: false });
    let answered = false;
    const waiting = host.callTool("task_status", { taskId, waitSeconds: 20 }).finally(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const requestsBefore = github.requests.length;
    const readsBefore = statusReads(github, runId);

    // The run finishes upstream.
    github.update(runId, {
      status: "completed",
      conclusion: "success",
      updatedAt: "2026-11-20T10:04:12Z",
      jobs: [{ id: 31_000_000_001, name: "build", status: "completed", conclusion: "success" }],
    });
    const completed = workflowRunDelivery(runId, "completed", "success", "2026-11-20T10:04:12Z");

    // Forged: signed with another secret, or not at all. 401, no GitHub request, the wait goes on.
    expect(await deliver(hooks, "github", completed, { signature: sign("not-the-secret-0123456789", completed) })).toBe(
      401,
    );
    expect(await deliver(hooks, "github", completed, { signature: "sha256=" + "0".repeat(64) })).toBe(401);
    // Too large, and to an instance that does not exist: refused before anything is read.
    expect(await deliver(hooks, "github", completed + " ".repeat(1024 * 1024))).toBe(413);
    expect(await deliver(hooks, "gitlab", completed)).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(github.requests.length).toBe(requestsBefore);
    expect(answered).toBe(false);

    // The real delivery: the wait answers with the result at once.
    const deliveredAt = Date.now();
    expect(await deliver(hooks, "github", completed, { deliveryId: "d-completed" })).toBe(202);
    const status = (await waiting) as { structuredContent: Record<string, any> };
    expect(Date.now() - deliveredAt).toBeLessThan(1000);
    expect(status.structuredContent["status"]).toBe("completed");
    expect(JSON.stringify(status)).toContain("concluded success");
    // One status read of the run attempt after the delivery (then its jobs and artifacts for the result).
    expect(statusReads(github, runId)).toBe(readsBefore + 1);

    // Replayed (same delivery id, another body signed right): 2xx, no effect, no GitHub request.
    const requestsAfter = github.requests.length;
    const replay = workflowRunDelivery(runId, "in_progress", null, "2026-11-20T10:05:00Z");
    expect(await deliver(hooks, "github", replay, { deliveryId: "d-completed" })).toBe(200);
    // A late in_progress under a new id cannot move the finished task back either.
    expect(await deliver(hooks, "github", replay, { deliveryId: "d-late" })).toBe(202);
    const after = await agent.get(taskId);
    expect(after["status"]).toBe("completed");
    expect(github.requests.length).toBe(requestsAfter);
    agent.expectNoneContains([token, webhookSecret]);
  });

  it("an environment's approval request reaches a waiting task_status at once, and a cancel needs no GitHub request", async () => {
    const { github, server, hooks } = await serve();
    const runId = github.nextRunId;
    const agent = recordingClient(server.url);
    const taskId = (await agent.callTool("run_ci", {}))["taskId"] as string;
    github.update(runId, { status: "in_progress", updatedAt: "2026-11-20T10:01:00Z" });
    const host = recordingClient(server.url, { tasks: false });
    const waiting = host.callTool("task_status", { taskId, waitSeconds: 20 });
    await new Promise((resolve) => setTimeout(resolve, 300));

    github.update(runId, {
      status: "waiting",
      updatedAt: "2026-11-20T10:01:02Z",
      jobs: [{ id: 27_364_518_273, name: "deploy", status: "waiting" }],
      pendingDeployments: [{ environmentId: 161_088_068, environmentName: "production", canApprove: true }],
    });
    const jobWaiting = fixtureDelivery("webhook-workflow-job-waiting.json", (payload) => {
      payload["workflow_job"].run_id = runId;
    });
    const deliveredAt = Date.now();
    expect(await deliver(hooks, "github", jobWaiting, { event: "workflow_job", deliveryId: "d-waiting" })).toBe(202);
    const asked = (await waiting) as { structuredContent: Record<string, any> };
    expect(Date.now() - deliveredAt).toBeLessThan(1000);
    expect(asked.structuredContent["status"]).toBe("input_required");

    // Cancelled upstream: the payload says all, so the task ends without another request to GitHub.
    const requestsBefore = github.requests.length;
    const cancelled = fixtureDelivery("webhook-workflow-run-cancelled.json", (payload) => {
      payload["workflow_run"].id = runId;
    });
    expect(await deliver(hooks, "github", cancelled, { deliveryId: "d-cancelled" })).toBe(202);
    expect((await agent.get(taskId))["status"]).toBe("cancelled");
    expect(github.requests.length).toBe(requestsBefore);

    // A re-run's first event names attempt 2: the attempt-1 task stays as it ended.
    const rerun = fixtureDelivery("webhook-workflow-run-rerun-requested.json", (payload) => {
      payload["workflow_run"].id = runId;
    });
    expect(await deliver(hooks, "github", rerun, { deliveryId: "d-rerun" })).toBe(202);
    expect((await agent.get(taskId))["status"]).toBe("cancelled");
  });
});
