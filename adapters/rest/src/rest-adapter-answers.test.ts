import { AdapterConfigError, InvalidToolInputError } from "@jobtasks/core";
import { afterEach, describe, expect, it } from "vitest";
import { restAdapter } from "./rest-adapter.js";
import type { RestOptions } from "./rest-options.js";
import { renderFarmConfig, renderFarmOrigin, renderFarmToken } from "./test-support/render-farm-config.js";
import { createTestContext } from "@jobtasks/testkit";
import { mockAgent, seen, type SeenRequest } from "./test-support/mock-agent.js";

// Answers are checked against the form that was presented before anything is sent. An accept that does
// not fit (a wrong type, a missing required field, a value its request cannot carry) is refused with
// InvalidToolInputError naming the field (the server answers -32602) and nothing is sent: the question
// stays open. Only a decline or a cancel sends the decline body; an accept never becomes a reject.
const agent = mockAgent();
const farm = agent.get(renderFarmOrigin);
afterEach(() => agent.assertNoPendingInterceptors());

const ref = { id: "r-42", createdAt: 0 };
const environment = { RENDER_TOKEN: renderFarmToken };
const reviewing = { state: "needs_review", review: { id: "rev-7", question: "Ship it?" } };
const base = renderFarmConfig().inputRequired!;
const noteForm = {
  ...base,
  schema: {
    type: "object" as const,
    properties: { verdict: { type: "string", enum: ["ship", "redo"] }, note: { type: "string" } },
    required: ["verdict"],
  },
  respond: {
    ...base.respond,
    headers: { "X-Note": "{{answer.note}}" },
    body: { verdict: "{{answer.verdict}}", all: "{{answer}}" },
  },
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
    await adapter().doRespond?.(
      ref,
      { "rev-7": { action: "accept", content: { verdict: "ship", note: "ok", extra: true } } },
      createTestContext(),
    );
    expect(captured.request?.body).toEqual({ verdict: "ship", all: { verdict: "ship", note: "ok", action: "accept" } });
    expect(captured.request?.headers["x-note"]).toBe("ok");
  });

  function expectNoAnswer() {
    farm.intercept({ path: "/api/renders/r-42", method: "GET" }).reply(200, reviewing);
  }

  it("refuses an answer of the wrong type, naming the field, and sends nothing", async () => {
    expectNoAnswer();
    const answering = adapter().doRespond?.(
      ref,
      { "rev-7": { action: "accept", content: { verdict: "ship", note: ["a", "b"] } } },
      createTestContext(),
    );
    await expect(answering).rejects.toBeInstanceOf(InvalidToolInputError);
    expectNoAnswer();
    const refusal = adapter().doRespond?.(
      ref,
      { "rev-7": { action: "accept", content: { verdict: "ship", note: ["a", "b"] } } },
      createTestContext(),
    );
    await expect(refusal).rejects.toMatchObject({
      field: "rev-7.note",
      problem: expect.stringMatching(/^Invalid input: expected string/),
    });
  });

  it("refuses an accepted form without a required field, naming it", async () => {
    expectNoAnswer();
    await expect(
      adapter().doRespond?.(ref, { "rev-7": { action: "accept", content: {} } }, createTestContext()),
    ).rejects.toMatchObject({ field: "rev-7.verdict" });
  });

  it("refuses an answer its request cannot carry (a header-splitting value), naming the field", async () => {
    expectNoAnswer();
    const answering = adapter().doRespond?.(
      ref,
      { "rev-7": { action: "accept", content: { verdict: "ship", note: "a\r\nX-Admin: 1" } } },
      createTestContext(),
    );
    await expect(answering).rejects.toMatchObject({ field: "rev-7.note" });
  });

  it("sends the decline body for a decline and for a cancel", async () => {
    for (const action of ["decline", "cancel"] as const) {
      const captured = expectOneAnswer();
      await adapter().doRespond?.(ref, { "rev-7": { action } }, createTestContext());
      expect(captured.request?.body).toEqual({ verdict: "redo" });
    }
  });

  it("requires respond.declineBody, since a declined question must still be answered upstream", () => {
    const { declineBody: _omitted, ...respond } = base.respond;
    const build = () => adapter({ ...noteForm, respond });
    expect(build).toThrow(AdapterConfigError);
    expect(build).toThrow(/inputRequired\.respond\.declineBody/);
  });

  it("refuses answer fields in the respond URL, since a decline goes to the same URL without them", () => {
    const build = () =>
      adapter({ ...noteForm, respond: { ...noteForm.respond, url: "/renders/{{job.id}}/reviews/{{answer.verdict}}" } });
    expect(build).toThrow(/inputRequired\.respond\.url/);
    expect(() =>
      adapter({ ...noteForm, respond: { ...noteForm.respond, url: "/renders/{{job.id}}/{{answer.action}}/{{key}}" } }),
    ).not.toThrow();
  });

  it("refuses an approval in the demo-api preset when approve is not a boolean, and sends nothing", async () => {
    const demoOrigin = "http://127.0.0.1:4010";
    const demo = restAdapter({ preset: "demo-api", baseUrl: demoOrigin }, { dispatcher: agent });
    const waiting = {
      status: "waiting_for_approval",
      currentStep: 1,
      totalSteps: 2,
      approval: { id: "ap-1", message: "Deploy?" },
    };
    agent.get(demoOrigin).intercept({ path: "/jobs/j1", method: "GET" }).reply(200, waiting);
    const answering = demo.doRespond?.(
      { id: "j1", createdAt: 0 },
      { "ap-1": { action: "accept", content: { approve: "yes" } } },
      createTestContext(),
    );
    await expect(answering).rejects.toMatchObject({ field: "ap-1.approve" });
  });

  // The form gives approve a default (false), so a client can send the rejection it shows without toggling;
  // an accept without approve is that default: a rejection, never an approval.
  it("reads an approval without approve in the demo-api preset as the form's default, a rejection", async () => {
    const demoOrigin = "http://127.0.0.1:4010";
    const demo = restAdapter({ preset: "demo-api", baseUrl: demoOrigin }, { dispatcher: agent });
    const waiting = {
      status: "waiting_for_approval",
      currentStep: 1,
      totalSteps: 2,
      approval: { id: "ap-1", message: "Deploy?" },
    };
    const api = agent.get(demoOrigin);
    api.intercept({ path: "/jobs/j1", method: "GET" }).reply(200, waiting);
    const captured: { request?: SeenRequest } = {};
    api.intercept({ path: "/jobs/j1/approval", method: "POST" }).reply((options) => {
      captured.request = seen(options);
      return { statusCode: 200, data: waiting };
    });
    await demo.doRespond?.(
      { id: "j1", createdAt: 0 },
      { "ap-1": { action: "accept", content: {} } },
      createTestContext(),
    );
    expect(captured.request?.body).toMatchObject({ approvalId: "ap-1", approve: false });
  });

  it("refuses a config form that does not compile when the adapter is built, naming the field", () => {
    const broken = {
      ...noteForm,
      schema: { type: "object" as const, properties: { ticket: { type: "string", pattern: "[A-Z]+-\\d+(" } } },
    };
    expect(() => adapter(broken)).toThrow(AdapterConfigError);
    expect(() => adapter(broken)).toThrow(/inputRequired\.schema\.properties\.ticket/);
  });

  it("refuses a config form with a nested object field when the adapter is built", () => {
    const nested = {
      ...noteForm,
      schema: {
        type: "object" as const,
        properties: { who: { type: "object", properties: { name: { type: "string" } } } },
      },
    };
    expect(() => adapter(nested)).toThrow(/inputRequired\.schema\.properties\.who/);
  });

  it("presents the configured form when the upstream's form does not compile, so an accept can be checked", async () => {
    const broken = { type: "object", properties: { verdict: { type: "string", pattern: "(" } }, required: ["verdict"] };
    const upstreamBody = { ...reviewing, review: { ...reviewing.review, form: broken } };
    farm.intercept({ path: "/api/renders/r-42", method: "GET" }).reply(200, upstreamBody);
    const snapshot = await adapter({ ...noteForm, schemaPath: "review.form" }).doGetStatus(ref, createTestContext());
    expect(snapshot.inputRequests?.["rev-7"]?.params.requestedSchema).toEqual(noteForm.schema);
  });

  it("refuses an accept it cannot check rather than declining it, when the upstream's form is the only one", async () => {
    const broken = { type: "object", properties: { verdict: { type: "string", pattern: "(" } }, required: ["verdict"] };
    const { schema: _none, ...withoutSchema } = noteForm;
    farm
      .intercept({ path: "/api/renders/r-42", method: "GET" })
      .reply(200, { ...reviewing, review: { ...reviewing.review, form: broken } });
    const answering = adapter({ ...withoutSchema, schemaPath: "review.form" }).doRespond?.(
      ref,
      { "rev-7": { action: "accept", content: { verdict: "ship" } } },
      createTestContext(),
    );
    await expect(answering).rejects.toMatchObject({ field: "rev-7" });
  });

  it("falls back to the configured form when the upstream's schema is not a flat form", async () => {
    farm.intercept({ path: "/api/renders/r-42", method: "GET" }).reply(200, {
      ...reviewing,
      review: { ...reviewing.review, form: { type: "object", properties: { a: "string" } } },
    });
    const snapshot = await adapter({ ...noteForm, schemaPath: "review.form" }).doGetStatus(ref, createTestContext());
    expect(snapshot.inputRequests?.["rev-7"]?.params.requestedSchema).toEqual(noteForm.schema);
  });
});
