import { runAdapterConformance } from "@jobtasks/testkit";
import type { MockAgent } from "undici";
import { restAdapter } from "./rest-adapter.js";
import type { RestJobRef } from "./rest-job-ref.js";
import { renderFarmConfig, renderFarmOrigin, renderFarmToken } from "./test-support/render-farm-config.js";
import { mockAgent } from "./test-support/mock-agent.js";

// Each harness owns a fresh MockAgent per adapter; arrange* put one job into the asked-for state.
let agent: MockAgent = mockAgent();
let jobCounter = 0;
const nextId = (prefix: string) => `${prefix}-${++jobCounter}`;
const asked = { responded: new Set<string>(), cancelled: new Set<string>() };

runAdapterConformance<RestJobRef>({
  name: "rest (render farm config, every block)",
  secrets: [renderFarmToken],
  createAdapter() {
    agent = mockAgent();
    // For the `start` check: a submit that creates a job, which then reads back as queued.
    const farm = agent.get(renderFarmOrigin);
    farm
      .intercept({ path: "/api/scenes/intro/renders", method: "POST" })
      .reply(201, { render: { id: "started" } })
      .persist();
    farm.intercept({ path: "/api/renders/started", method: "GET" }).reply(200, { state: "queued" }).persist();
    return restAdapter(renderFarmConfig(), { dispatcher: agent, environment: { RENDER_TOKEN: renderFarmToken } });
  },
  async cleanup() {
    await agent.close();
  },
  statuses: [
    { rawStatus: "queued", expected: "working" },
    { rawStatus: "rendering", expected: "working" },
    { rawStatus: "needs_review", expected: "input_required" },
    { rawStatus: "done", expected: "completed", isError: false },
    { rawStatus: "crashed", expected: "completed", isError: true },
    { rawStatus: "aborted", expected: "cancelled" },
  ],
  unknownRawStatus: "defragmenting",
  arrangeStatus(rawStatus) {
    const id = nextId("r");
    agent
      .get(renderFarmOrigin)
      .intercept({ path: `/api/renders/${id}`, method: "GET" })
      .reply(200, {
        state: rawStatus,
        progress: { frame: 3, total: 10 },
        review: { id: `rev-${id}`, question: "Ship it?" },
        output: { frames: 10 },
        failure: { reason: "out of memory" },
        // An upstream that echoes the token in its logs must not get it into a result.
        log: [`auth header was Bearer ${renderFarmToken}`, "frame 3 failed"],
      })
      .persist();
    return { id, createdAt: Date.now() };
  },
  arrangeNotFound() {
    const id = nextId("gone");
    agent
      .get(renderFarmOrigin)
      .intercept({ path: `/api/renders/${id}`, method: "GET" })
      .reply(404, { message: "no such render" });
    // Started long ago: a 404 right after the submit is read as not visible yet (status.goneGraceMs).
    return { id, createdAt: Date.now() - 3_600_000 };
  },
  arrangeRetryableFailure() {
    const id = nextId("busy");
    agent
      .get(renderFarmOrigin)
      .intercept({ path: `/api/renders/${id}`, method: "GET" })
      .reply(503, { message: `overloaded (token ${renderFarmToken})` }, { headers: { "retry-after": "2" } });
    return { id, createdAt: Date.now() };
  },
  start: { tool: "render_scene", input: { scene: "intro", frames: 3 } },
  inputRequired: {
    arrange() {
      const id = nextId("review");
      const farm = agent.get(renderFarmOrigin);
      farm
        .intercept({ path: `/api/renders/${id}`, method: "GET" })
        .reply(200, { state: "needs_review", review: { id: `rev-${id}`, question: "Ship it?" } })
        .persist();
      farm.intercept({ path: `/api/renders/${id}/reviews/rev-${id}`, method: "POST" }).reply(() => {
        asked.responded.add(id);
        return { statusCode: 204, data: "" };
      });
      return { id, createdAt: Date.now() };
    },
    response: { action: "accept", content: { verdict: "ship" } },
    verifyResponded: (ref) => asked.responded.has(ref.id),
  },
  cancel: {
    arrange() {
      const id = nextId("cancel");
      agent
        .get(renderFarmOrigin)
        .intercept({ path: `/api/renders/${id}/abort`, method: "POST" })
        .reply(() => {
          asked.cancelled.add(id);
          return { statusCode: 202, data: {} };
        });
      return { id, createdAt: Date.now() };
    },
    verifyCancelRequested: (ref) => asked.cancelled.has(ref.id),
  },
});

// The demo-api preset, with demo-shaped job records served by a MockAgent (the real API is covered by
// demo-api-preset.test.ts; here every status can be produced on demand).
const demoOrigin = "http://127.0.0.1:4010";
let demoAgent: MockAgent = mockAgent();
const demoGatewayToken = "gateway-token-7d1e0c";
const demoAsked = { responded: new Set<string>(), cancelled: new Set<string>() };

function demoRecord(id: string, status: string) {
  const waiting = status === "waiting_for_approval";
  return {
    id,
    status,
    name: "demo-pipeline",
    totalSteps: 2,
    currentStep: 1,
    steps: [
      { number: 1, name: "checkout", status: waiting ? "succeeded" : "running" },
      { number: 2, name: "install", status: "pending" },
    ],
    approval: waiting ? { id: `appr_${id}`, message: "Deploy demo-pipeline to production?", state: "pending" } : null,
    logs: [
      "Job demo-pipeline queued with 2 steps",
      `[checkout] GET with Bearer ${demoGatewayToken}`,
      "[checkout] step 1/2 started",
    ],
    createdAt: "2026-11-20T10:15:02.000Z",
    updatedAt: "2026-11-20T10:15:03.000Z",
  };
}

runAdapterConformance<RestJobRef>({
  name: "rest (demo-api preset)",
  // The demo API takes no credentials, but a deployment behind a gateway would; the suite checks none leaks.
  secrets: [demoGatewayToken],
  createAdapter() {
    demoAgent = mockAgent();
    const api = demoAgent.get(demoOrigin);
    api.intercept({ path: "/jobs", method: "POST" }).reply(201, demoRecord("job_started", "queued")).persist();
    api
      .intercept({ path: "/jobs/job_started", method: "GET" })
      .reply(200, demoRecord("job_started", "running"))
      .persist();
    return restAdapter(
      { preset: "demo-api", baseUrl: demoOrigin, auth: { type: "bearer", token: demoGatewayToken } },
      { dispatcher: demoAgent },
    );
  },
  async cleanup() {
    await demoAgent.close();
  },
  statuses: [
    { rawStatus: "queued", expected: "working" },
    { rawStatus: "running", expected: "working" },
    { rawStatus: "waiting_for_approval", expected: "input_required" },
    { rawStatus: "succeeded", expected: "completed", isError: false },
    { rawStatus: "failed", expected: "completed", isError: true },
    { rawStatus: "rejected", expected: "completed", isError: true },
    { rawStatus: "cancelled", expected: "cancelled" },
  ],
  unknownRawStatus: "paused_for_maintenance",
  arrangeStatus(rawStatus) {
    const id = nextId("job");
    demoAgent
      .get(demoOrigin)
      .intercept({ path: `/jobs/${id}`, method: "GET" })
      .reply(200, demoRecord(id, rawStatus))
      .persist();
    return { id, createdAt: Date.now() };
  },
  arrangeNotFound() {
    const id = nextId("job");
    demoAgent
      .get(demoOrigin)
      .intercept({ path: `/jobs/${id}`, method: "GET" })
      .reply(404, { error: "not_found" });
    return { id, createdAt: Date.now() - 3_600_000 };
  },
  arrangeRetryableFailure() {
    const id = nextId("job");
    demoAgent
      .get(demoOrigin)
      .intercept({ path: `/jobs/${id}`, method: "GET" })
      .reply(503, { error: "injected_fault" }, { headers: { "retry-after": "1" } });
    return { id, createdAt: Date.now() };
  },
  start: { tool: "demo_pipeline", input: { steps: 2, approval: true } },
  inputRequired: {
    arrange() {
      const id = nextId("job");
      const api = demoAgent.get(demoOrigin);
      api
        .intercept({ path: `/jobs/${id}`, method: "GET" })
        .reply(200, demoRecord(id, "waiting_for_approval"))
        .persist();
      api.intercept({ path: `/jobs/${id}/approval`, method: "POST" }).reply((options) => {
        const body = JSON.parse(String(options.body)) as { approvalId: string; approve: boolean };
        if (body.approvalId === `appr_${id}` && body.approve === true) demoAsked.responded.add(id);
        return { statusCode: 200, data: demoRecord(id, "running") };
      });
      return { id, createdAt: Date.now() };
    },
    response: { action: "accept", content: { approve: true } },
    verifyResponded: (ref) => demoAsked.responded.has(ref.id),
  },
  cancel: {
    arrange() {
      const id = nextId("job");
      demoAgent
        .get(demoOrigin)
        .intercept({ path: `/jobs/${id}/cancel`, method: "POST" })
        .reply(() => {
          demoAsked.cancelled.add(id);
          return { statusCode: 202, data: demoRecord(id, "running") };
        });
      return { id, createdAt: Date.now() };
    },
    verifyCancelRequested: (ref) => demoAsked.cancelled.has(ref.id),
  },
});
