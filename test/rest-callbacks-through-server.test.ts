import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { restAdapter, type RestOptions } from "@jobtasks/rest";
import { startFaultyUpstream, type FaultyUpstream } from "./support/faulty-upstream.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { recordingClient } from "./support/recording-client.js";

/**
 * A REST job API's callbacks through a real jobtasks server: a job followed by task_status, then a signed
 * callback to /hooks/<instance> ends the wait at once; forged, stale, unreadable and replayed deliveries
 * change nothing and cost no request to the job API. The job API is a loopback fake counting requests.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const token = "render-api-token-that-must-never-leak-0123";
const callbackSecret = "render-callback-secret-0123456789abcdef";

interface FakeJob {
  state: string;
  output?: Record<string, unknown>;
}

/** The job API: POST /api/jobs starts job-1, GET /api/jobs/job-1 says how it is. */
async function startJobApi(): Promise<{ api: FaultyUpstream; job: FakeJob }> {
  const job: FakeJob = { state: "queued" };
  const api = await startFaultyUpstream({
    answer: (method, path) => {
      if (method === "POST" && path === "/api/jobs") return { status: 201, body: { id: "job-1", state: "queued" } };
      if (method === "GET" && path === "/api/jobs/job-1") return { status: 200, body: { id: "job-1", ...job } };
      return { status: 404, body: { message: "no such job" } };
    },
  });
  return { api: cleanup.add(api), job };
}

function options(baseUrl: string, events: NonNullable<RestOptions["events"]>): RestOptions {
  return {
    baseUrl: `${baseUrl}/api`,
    auth: { type: "bearer", token },
    tools: [{ name: "render", description: "Render a scene.", submit: { url: "/jobs" } }],
    reference: { path: "id" },
    status: {
      url: "/jobs/{{job.id}}",
      field: "state",
      working: ["queued", "rendering"],
      completed: ["done"],
      cancelled: ["aborted"],
    },
    result: { path: "output" },
    // Long, so that every change a wait sees in this test comes from a callback, not from its own polls.
    polling: { initialIntervalMs: 10_000, multiplier: 1, maxIntervalMs: 10_000 },
    events,
  };
}

async function serve(events: NonNullable<RestOptions["events"]>) {
  const { api, job } = await startJobApi();
  const adapter = restAdapter(options(api.url, events), { environment: { RENDER_CALLBACK_SECRET: callbackSecret } });
  const server = cleanup.add(
    await startInProcessServer({ adapters: [{ name: "render", adapter }], service: { snapshotCacheMs: 1000 } }),
  );
  return { api, job, server, hook: new URL("/hooks/render", server.url) };
}

const signedEvents: NonNullable<RestOptions["events"]> = {
  jobIdPath: "$.job.id",
  statusPath: "$.job.state",
  deliveryIdHeader: "X-Delivery-Id",
  verification: {
    scheme: "hmac-sha256",
    header: "X-Render-Signature",
    prefix: "v1=",
    timestampHeader: "X-Render-Timestamp",
    secretEnv: "RENDER_CALLBACK_SECRET",
  },
};

/** The job API's signature: `v1=` and the hex HMAC-SHA256 of `<timestamp>.<body>`. */
function signedHeaders(body: string, options: { secret?: string; secondsAgo?: number; deliveryId?: string } = {}) {
  const timestamp = String(Math.floor(Date.now() / 1000) - (options.secondsAgo ?? 0));
  const signature = createHmac("sha256", options.secret ?? callbackSecret)
    .update(`${timestamp}.${body}`)
    .digest("hex");
  return {
    "x-render-timestamp": timestamp,
    "x-render-signature": `v1=${signature}`,
    "x-delivery-id": options.deliveryId ?? "delivery-1",
  };
}

async function deliver(hook: URL, body: string, headers: Record<string, string>): Promise<number> {
  const response = await fetch(hook, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

/** A host without the tasks extension following the task with task_status, which waits. */
async function waitingHost(url: string, taskId: string) {
  const host = recordingClient(url, { tasks: false });
  const state = { answered: false };
  const waiting = host
    .callTool("task_status", { taskId, waitSeconds: 20 })
    .finally(() => (state.answered = true)) as Promise<{ structuredContent: Record<string, any> }>;
  // Long enough for the wait to have read the job once and begun waiting for a change.
  await new Promise((resolve) => setTimeout(resolve, 300));
  return { host, waiting, state };
}

describe("REST callbacks through the server", () => {
  it("a signed callback ends a waiting task_status within a second; forged, stale, unreadable and replayed ones do nothing", async () => {
    const { api, job, server, hook } = await serve(signedEvents);
    const agent = recordingClient(server.url);
    const taskId = (await agent.callTool("render", {}))["taskId"] as string;
    job.state = "rendering";
    const { host, waiting, state } = await waitingHost(server.url, taskId);
    const requestsBefore = api.requests.length;

    // The job finishes upstream, and the job API calls back.
    job.state = "done";
    job.output = { frames: 120, url: "renders/job-1.mp4" };
    const done = JSON.stringify({ job: { id: "job-1", state: "done" } });

    // Forged: another secret's signature, no signature, a body the signature is not of. 401, no effect.
    expect(await deliver(hook, done, signedHeaders(done, { secret: "not-the-callback-secret-0123456789" }))).toBe(401);
    const { "x-render-signature": _signature, ...unsigned } = signedHeaders(done);
    expect(await deliver(hook, done, unsigned)).toBe(401);
    const other = JSON.stringify({ job: { id: "job-1", state: "aborted" } });
    expect(await deliver(hook, other, signedHeaders(done))).toBe(401);
    // Stale: signed right, but ten minutes old (a replay of a captured delivery). 401.
    expect(await deliver(hook, done, signedHeaders(done, { secondsAgo: 600, deliveryId: "delivery-old" }))).toBe(401);
    // Signed right, but naming no job: unreadable, 400.
    const nameless = JSON.stringify({ job: { state: "done" } });
    expect(await deliver(hook, nameless, signedHeaders(nameless, { deliveryId: "delivery-nameless" }))).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(api.requests.length).toBe(requestsBefore);
    expect(state.answered).toBe(false);

    // The real callback: the wait answers with the result at once, after one status read of the job.
    const deliveredAt = Date.now();
    expect(await deliver(hook, done, signedHeaders(done, { deliveryId: "delivery-done" }))).toBe(202);
    const status = await waiting;
    expect(Date.now() - deliveredAt).toBeLessThan(1000);
    expect(status.structuredContent["status"]).toBe("completed");
    expect(JSON.stringify(status)).toContain("renders/job-1.mp4");
    expect(api.requests.slice(requestsBefore)).toEqual([{ method: "GET", path: "/api/jobs/job-1" }]);

    // Replayed under the same delivery id (another body, signed right): 2xx, no effect, no request.
    const requestsAfter = api.requests.length;
    const late = JSON.stringify({ job: { id: "job-1", state: "rendering" } });
    expect(await deliver(hook, late, signedHeaders(late, { deliveryId: "delivery-done" }))).toBe(200);
    // A late "rendering" under a new id cannot move the finished task back either.
    expect(await deliver(hook, late, signedHeaders(late, { deliveryId: "delivery-late" }))).toBe(202);
    expect((await agent.get(taskId))["status"]).toBe("completed");
    expect(api.requests.length).toBe(requestsAfter);
    agent.expectNoneContains([token, callbackSecret]);
    host.expectNoneContains([token, callbackSecret]);
  });

  it("a shared-secret callback whose status says cancelled ends the task with no request to the job API", async () => {
    const { api, job, server, hook } = await serve({
      jobIdPath: "job.id",
      statusPath: "job.state",
      verification: { scheme: "shared-secret", header: "X-Callback-Token", secretEnv: "RENDER_CALLBACK_SECRET" },
    });
    const agent = recordingClient(server.url);
    const taskId = (await agent.callTool("render", {}))["taskId"] as string;
    job.state = "rendering";
    const { waiting } = await waitingHost(server.url, taskId);
    const requestsBefore = api.requests.length;

    const aborted = JSON.stringify({ job: { id: "job-1", state: "aborted" } });
    expect(await deliver(hook, aborted, { "x-callback-token": "not-the-callback-secret-012345" })).toBe(401);
    expect(await deliver(hook, aborted, { "x-callback-token": callbackSecret })).toBe(202);
    const status = await waiting;
    expect(status.structuredContent["status"]).toBe("cancelled");
    expect((await agent.get(taskId))["status"]).toBe("cancelled");
    // The payload said all: the task ended without asking the job API.
    expect(api.requests.length).toBe(requestsBefore);
  });
});
