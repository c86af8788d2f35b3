import { AdapterConfigError } from "@jobtasks/core";
import { afterEach, describe, expect, it } from "vitest";
import { restAdapter } from "./rest-adapter.js";
import type { RestOptions } from "./rest-options-schema.js";
import { renderFarmConfig, renderFarmOrigin, renderFarmToken } from "./test-support/render-farm-config.js";
import { mockAgent, seen, testContext, type SeenRequest } from "./test-support/test-context.js";

// Answers are checked against the form that was presented before anything is sent. An answer that does
// not fit (a wrong type, a missing required field, a value its request cannot carry) is unclear, and an
// unclear answer is delivered as a decline, as the hand-written demo adapter does: a job never goes ahead
// on an unclear answer, and the question is answered once, never presented again.
const agent = mockAgent();
const farm = agent.get(renderFarmOrigin);
afterEach(() => agent.assertNoPendingInterceptors());

const reference = { id: "r-42", createdAt: 0 };
const environment = { RENDER_TOKEN: renderFarmToken };
const reviewing = { state: "needs_review", review: { id: "rev-7", question: "Ship it?" } };
const base = renderFarmConfig().inputRequired!;
const noteForm = {
  ...base,
  schema: { type: "object" as const, properties: { verdict: { type: "string", enum: ["ship", "redo"] }, note: { type: "string" } }, required: ["verdict"] },
  respond: { ...base.respond, headers: { "X-Note": "{{answer.note}}" }, body: { verdict: "{{answer.verdict}}", all: "{{answer}}" } },
};
function adapter(inputRequired: NonNullable<RestOptions["inputRequired"]> = noteForm) {
  return restAdapter(renderFarmConfig({ inputRequired }), { dispatcher: agent, environment });
}
function expectOneAnswer(): { request?: SeenRequest } {
  const captured: { request?: SeenRequest } = {};
  farm.intercept({ path: "/api/renders/r-42", method: "GET" }).reply(200, reviewing);
  farm.intercept({ path: "/api/renders/r-42/reviews/rev-7", method: "POST" }).reply((options) => {
    captured.request = seen(options);
    return { statusCode: 200, data: {} };
  });
  return captured;
}

describe("rest adapter: answers checked against the form", () => {
  it("sends only the fields the form defines", async () => {
    const captured = expectOneAnswer();
    await adapter().doRespond?.(reference, { "rev-7": { action: "accept", content: { verdict: "ship", note: "ok", extra: true } } }, testContext());
    expect(captured.request?.body).toEqual({ verdict: "ship", all: { verdict: "ship", note: "ok", action: "accept" } });
    expect(captured.request?.headers["x-note"]).toBe("ok");
  });

  it("delivers an answer of the wrong type as a decline, logging the field", async () => {
    const captured = expectOneAnswer();
    const context = testContext();
    await adapter().doRespond?.(reference, { "rev-7": { action: "accept", content: { verdict: "ship", note: ["a", "b"] } } }, context);
    expect(captured.request?.body).toEqual({ verdict: "redo" });
    expect(context.logs.join("\n")).toMatch(/note/);
  });

  it("delivers an accepted form without a required field as a decline", async () => {
    const captured = expectOneAnswer();
    await adapter().doRespond?.(reference, { "rev-7": { action: "accept", content: {} } }, testContext());
    expect(captured.request?.body).toEqual({ verdict: "redo" });
  });

  it("delivers an answer its request cannot carry (a header-splitting value) as a decline", async () => {
    const captured = expectOneAnswer();
    await adapter().doRespond?.(reference, { "rev-7": { action: "accept", content: { verdict: "ship", note: "a\r\nX-Admin: 1" } } }, testContext());
    expect(captured.request?.body).toEqual({ verdict: "redo" });
    expect(captured.request?.headers["x-admin"]).toBeUndefined();
  });

  it("requires respond.declineBody, since a declined question must still be answered upstream", () => {
    const { declineBody: _omitted, ...respond } = base.respond;
    const build = () => adapter({ ...noteForm, respond });
    expect(build).toThrow(AdapterConfigError);
    expect(build).toThrow(/inputRequired\.respond\.declineBody/);
  });

  it("refuses answer fields in the respond URL, since a decline goes to the same URL without them", () => {
    const build = () => adapter({ ...noteForm, respond: { ...noteForm.respond, url: "/renders/{{job.id}}/reviews/{{answer.verdict}}" } });
    expect(build).toThrow(/inputRequired\.respond\.url/);
    expect(() => adapter({ ...noteForm, respond: { ...noteForm.respond, url: "/renders/{{job.id}}/{{answer.action}}/{{key}}" } })).not.toThrow();
  });

  it("rejects the deploy in the demo-api preset when approve is missing or not a boolean", async () => {
    const demoOrigin = "http://127.0.0.1:4010";
    const demo = restAdapter({ preset: "demo-api", baseUrl: demoOrigin }, { dispatcher: agent });
    const waiting = { status: "waiting_for_approval", currentStep: 1, totalSteps: 2, approval: { id: "ap-1", message: "Deploy?" } };
    const bodies: unknown[] = [];
    for (const content of [{}, { approve: "yes" }]) {
      agent.get(demoOrigin).intercept({ path: "/jobs/j1", method: "GET" }).reply(200, waiting);
      agent.get(demoOrigin).intercept({ path: "/jobs/j1/approval", method: "POST" }).reply((options) => {
        bodies.push(seen(options).body);
        return { statusCode: 200, data: {} };
      });
      await demo.doRespond?.({ id: "j1", createdAt: 0 }, { "ap-1": { action: "accept", content: content as Record<string, string> } }, testContext());
    }
    expect(bodies).toEqual([
      { approvalId: "ap-1", approve: false },
      { approvalId: "ap-1", approve: false },
    ]);
  });

  it("falls back to the configured form when the upstream's schema is not a flat form", async () => {
    farm.intercept({ path: "/api/renders/r-42", method: "GET" }).reply(200, { ...reviewing, review: { ...reviewing.review, form: { type: "object", properties: { a: "string" } } } });
    const snapshot = await adapter({ ...noteForm, schemaPath: "review.form" }).doGetStatus(reference, testContext());
    expect(snapshot.inputRequests?.["rev-7"]?.params.requestedSchema).toEqual(noteForm.schema);
  });
});
