import { afterEach, describe, expect, it } from "vitest";
import { createHmac, timingSafeEqual } from "node:crypto";
import type { JobAdapterV1, JobSnapshot } from "@jobtasks/core";
import { TaskIdSealer } from "./task-id.js";
import { TaskService } from "./task-service.js";
import { startHttpServer, type RunningHttpServer } from "./http-server.js";
import { runTaskSubscription, type OutgoingMessage } from "./task-subscription.js";
import { maxDeliveryBytes } from "./event-receiver.js";
import { capturingLogger } from "./test-support/capturing-logger.js";
import {
  completedSnapshot,
  createScriptedAdapter,
  type ScriptedJobRef,
} from "../../../test/support/scripted-adapter.js";

/** POST /hooks/<instance>: deliveries verified by the adapter, deduplicated, routed to the job's waits. */

const hookSecret = "hook-secret-0123456789abcdef";

/** The scripted job system with a webhook: an HMAC of the body, a delivery id, the job id in the body. */
function eventedAdapter() {
  const scripted = createScriptedAdapter({ pollIntervalMs: 60_000 });
  const adapter: JobAdapterV1<ScriptedJobRef> = {
    ...scripted.adapter,
    // Looked up at each call, so a test may slow the reads down.
    doGetStatus: (ref, context) => scripted.adapter.doGetStatus(ref, context),
    events: {
      async doVerifyDelivery({ headers, body }) {
        const expected = Buffer.from(sign(body));
        const given = Buffer.from(headers["x-signature"] ?? "");
        if (given.length !== expected.length || !timingSafeEqual(given, expected))
          return { verified: false, reason: "the signature does not match" };
        const deliveryId = headers["x-delivery"];
        return deliveryId === undefined ? { verified: true } : { verified: true, deliveryId };
      },
      async doReadDelivery({ body }) {
        const payload = JSON.parse(Buffer.from(body).toString("utf8")) as { jobId: string; snapshot?: JobSnapshot };
        return {
          event: "job",
          action: payload.snapshot?.status ?? "changed",
          jobs: [{ ref: { jobId: payload.jobId }, ...(payload.snapshot ? { snapshot: payload.snapshot } : {}) }],
        };
      },
    },
  };
  return { scripted, adapter };
}

function sign(body: Uint8Array | string): string {
  return createHmac("sha256", hookSecret).update(body).digest("hex");
}

let http: RunningHttpServer | undefined;
let service: TaskService | undefined;
afterEach(async () => {
  await http?.close();
  await service?.close();
  http = undefined;
  service = undefined;
});

async function start() {
  const { logger, entries } = capturingLogger();
  const { scripted, adapter } = eventedAdapter();
  service = new TaskService({
    adapters: [
      { name: "ci", adapter },
      { name: "quiet", adapter: createScriptedAdapter({ toolName: "quiet_job" }).adapter },
    ],
    sealer: new TaskIdSealer({ secret: "event-endpoint-test-secret-0123456789abcdef" }),
    logger,
  });
  http = await startHttpServer({ service, logger, name: "events-test", version: "1.0.0", port: 0 });
  const hooks = new URL("/hooks/", http.url);
  const caller = { principal: "local", signal: new AbortController().signal };
  const created = (await service.callTool("scripted_job", {}, { ...caller, tasksDeclared: true })) as {
    taskId: string;
  };
  return { scripted, entries, hooks, caller, taskId: created.taskId, service };
}

async function deliver(
  hooks: URL,
  instance: string,
  body: string,
  headers: Record<string, string> = { "x-signature": sign(body) },
) {
  const response = await fetch(new URL(instance, hooks), {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  return { status: response.status, body: await response.text() };
}

describe("POST /hooks/<instance>", () => {
  it("takes any verified delivery, even one it cannot read, as the instance's events arriving: its jobs are then answered from their cache", async () => {
    const { scripted, hooks, caller, taskId, service } = await start();
    await service.getTask(taskId, caller);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const before = scripted.calls.getStatus;
    await service.getTask(taskId, caller);
    // Without deliveries, the one-second cache.
    expect(scripted.calls.getStatus - before).toBe(1);
    // Signed with the webhook's secret, so the webhook works, though this body names no job at all.
    const body = "a body that is not JSON";
    expect((await deliver(hooks, "ci", body)).status).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await service.getTask(taskId, caller);
    expect(scripted.calls.getStatus - before).toBe(1);
  });

  it("wakes a waiting task_status at once with the event's news, answering before the read it causes", async () => {
    const { scripted, hooks, caller, taskId, service } = await start();
    const readsBefore = scripted.calls.getStatus;
    const waiting = service.callTool("task_status", { taskId, waitSeconds: 30 }, { ...caller, tasksDeclared: false });
    await new Promise((resolve) => setTimeout(resolve, 50));
    scripted.update(scripted.onlyJob(), completedSnapshot("green"));
    const startedAt = Date.now();
    const body = JSON.stringify({ jobId: scripted.onlyJob().jobId });
    const answer = await deliver(hooks, "ci", body, { "x-signature": sign(body), "x-delivery": "d-1" });
    expect(answer.status).toBe(202);
    const result = (await waiting) as unknown as { structuredContent: { status: string } };
    expect(result.structuredContent.status).toBe("completed");
    expect(Date.now() - startedAt).toBeLessThan(1000);
    // The wait's first look came from the start's read; then one read after the event, none while it slept.
    expect(scripted.calls.getStatus - readsBefore).toBe(1);
  });

  it("answers a delivery before the upstream read it causes has ended", async () => {
    const { scripted, hooks, caller, taskId, service } = await start();
    const readsBefore = scripted.calls.getStatus;
    const waiting = service.callTool("task_status", { taskId, waitSeconds: 30 }, { ...caller, tasksDeclared: false });
    await new Promise((resolve) => setTimeout(resolve, 50));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const read = scripted.adapter.doGetStatus;
    scripted.adapter.doGetStatus = async (ref, context) => {
      await gate;
      return read.call(scripted.adapter, ref, context);
    };
    scripted.update(scripted.onlyJob(), completedSnapshot("green"));
    const body = JSON.stringify({ jobId: scripted.onlyJob().jobId });
    expect((await deliver(hooks, "ci", body)).status).toBe(202);
    expect(scripted.calls.getStatus).toBe(readsBefore);
    release();
    await waiting;
    expect(scripted.calls.getStatus).toBe(readsBefore + 1);
  });

  it("refuses a bad or missing signature with 401, with no effect and nothing of the body in the log", async () => {
    const { scripted, entries, hooks, caller, taskId, service } = await start();
    const waiting = service.callTool("task_status", { taskId, waitSeconds: 1 }, { ...caller, tasksDeclared: false });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const readsBefore = scripted.calls.getStatus;
    const body = JSON.stringify({ jobId: scripted.onlyJob().jobId, marker: "body-marker-7f3a" });
    expect((await deliver(hooks, "ci", body, { "x-signature": sign("another body") })).status).toBe(401);
    expect((await deliver(hooks, "ci", body, {})).status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(scripted.calls.getStatus).toBe(readsBefore);
    expect(JSON.stringify(entries)).not.toContain("body-marker-7f3a");
    expect(entries.some((entry) => entry.msg === "upstream event refused")).toBe(true);
    const status = (await waiting) as unknown as { structuredContent: { status: string } };
    expect(status.structuredContent.status).toBe("working");
  });

  it("takes a delivery id once: a replay is answered 2xx and has no effect", async () => {
    const { scripted, hooks, service, taskId, caller } = await start();
    const job = scripted.onlyJob();
    const first = JSON.stringify({
      jobId: job.jobId,
      snapshot: { status: "working", rawStatus: "running", message: "first" },
    });
    expect((await deliver(hooks, "ci", first, { "x-signature": sign(first), "x-delivery": "same" })).status).toBe(202);
    const replay = JSON.stringify({
      jobId: job.jobId,
      snapshot: { status: "working", rawStatus: "running", message: "replayed" },
    });
    const answer = await deliver(hooks, "ci", replay, { "x-signature": sign(replay), "x-delivery": "same" });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ duplicate: true });
    const task = await service.getTask(taskId, caller);
    expect(task.statusMessage).toBe("first");
  });

  it("answers 404 for an unknown instance and for one whose adapter has no events, 405 for a GET", async () => {
    const { hooks } = await start();
    const body = JSON.stringify({ jobId: "job-1" });
    expect((await deliver(hooks, "nowhere", body)).status).toBe(404);
    expect((await deliver(hooks, "quiet", body)).status).toBe(404);
    expect((await fetch(new URL("ci", hooks))).status).toBe(405);
  });

  it("refuses a body over 1 MiB with 413", async () => {
    const { hooks, scripted } = await start();
    const body = JSON.stringify({ jobId: scripted.onlyJob().jobId, padding: "x".repeat(maxDeliveryBytes) });
    expect((await deliver(hooks, "ci", body)).status).toBe(413);
  });

  it("answers 400 for a verified delivery the adapter cannot read", async () => {
    const { hooks } = await start();
    expect((await deliver(hooks, "ci", "not json")).status).toBe(400);
  });

  it("pushes notifications/tasks to a subscriber as soon as the event arrives", async () => {
    const { scripted, hooks, taskId, service } = await start();
    const sent: OutgoingMessage[] = [];
    const controller = new AbortController();
    const { logger } = capturingLogger();
    const subscription = runTaskSubscription({
      service,
      logger,
      principal: "local",
      request: { id: 7, taskIds: [taskId], declaresTasks: true },
      send: (message) => sent.push(message),
      signal: controller.signal,
      intervalMs: 60_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const notifications = () => sent.filter((message) => message.method === "notifications/tasks");
    expect(notifications()).toHaveLength(1);
    const startedAt = Date.now();
    const body = JSON.stringify({
      jobId: scripted.onlyJob().jobId,
      snapshot: { status: "working", rawStatus: "running", message: "step 2/3" },
    });
    await deliver(hooks, "ci", body);
    await expect.poll(() => notifications().length, { timeout: 1000, interval: 5 }).toBe(2);
    expect(Date.now() - startedAt).toBeLessThan(1000);
    expect((notifications()[1]!.params as { statusMessage: string }).statusMessage).toBe("step 2/3");
    controller.abort();
    await subscription;
  });
});
