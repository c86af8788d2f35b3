import { JobNotFoundError, UpstreamError } from "@jobtasks/core";
import { afterEach, describe, expect, it } from "vitest";
import { restAdapter } from "./rest-adapter.js";
import { renderFarmConfig, renderFarmOrigin, renderFarmToken } from "./test-support/render-farm-config.js";
import { createTestContext } from "@jobtasks/testkit";
import { mockAgent, seen, type SeenRequest } from "./test-support/mock-agent.js";

const agent = mockAgent();
const farm = agent.get(renderFarmOrigin);
afterEach(() => agent.assertNoPendingInterceptors());

const ref = { id: "r-42", createdAt: Date.now() };
const environment = { RENDER_TOKEN: renderFarmToken };
function adapter(overrides = {}) {
  return restAdapter(renderFarmConfig(overrides), { dispatcher: agent, environment });
}
const reviewing = { state: "needs_review", review: { id: "rev-7", question: "Frame 12 looks dark. Ship it?" } };

describe("rest adapter: input required", () => {
  it("presents one form keyed by the upstream's review id", async () => {
    farm.intercept({ path: "/api/renders/r-42", method: "GET" }).reply(200, reviewing);
    const snapshot = await adapter().doGetStatus(ref, createTestContext());
    expect(snapshot).toMatchObject({
      status: "input_required",
      rawStatus: "needs_review",
      message: "Frame 12 looks dark. Ship it?",
    });
    expect(snapshot.inputRequests).toEqual({
      "rev-7": {
        method: "elicitation/create",
        params: {
          mode: "form",
          message: "Frame 12 looks dark. Ship it?",
          requestedSchema: {
            type: "object",
            properties: { verdict: { type: "string", enum: ["ship", "redo"] } },
            required: ["verdict"],
          },
        },
      },
    });
  });

  it("marks the question as an approval unless the config calls it a plain form", async () => {
    farm.intercept({ path: "/api/renders/r-42", method: "GET" }).reply(200, reviewing).times(2);
    expect((await adapter().doGetStatus(ref, createTestContext())).approvalKeys).toEqual(["rev-7"]);
    const base = renderFarmConfig().inputRequired!;
    const plain = await adapter({ inputRequired: { ...base, approval: false } }).doGetStatus(ref, createTestContext());
    expect(plain.status).toBe("input_required");
    expect(plain.approvalKeys).toBeUndefined();
  });

  it("reads the form schema from the response when schemaPath is set", async () => {
    const base = renderFarmConfig().inputRequired!;
    farm.intercept({ path: "/api/renders/r-42", method: "GET" }).reply(200, {
      ...reviewing,
      review: { ...reviewing.review, form: { type: "object", properties: { note: { type: "string" } } } },
    });
    const snapshot = await adapter({ inputRequired: { ...base, schemaPath: "review.form" } }).doGetStatus(
      ref,
      createTestContext(),
    );
    expect(snapshot.inputRequests?.["rev-7"]?.params.requestedSchema).toEqual({
      type: "object",
      properties: { note: { type: "string" } },
    });
  });

  it("stays working while the upstream has not yet named the question", async () => {
    farm.intercept({ path: "/api/renders/r-42", method: "GET" }).reply(200, { state: "needs_review" });
    await expect(adapter().doGetStatus(ref, createTestContext())).resolves.toMatchObject({
      status: "working",
      rawStatus: "needs_review",
    });
  });

  it("delivers an accepted answer to the key's URL, then the job moves on", async () => {
    let request: SeenRequest | undefined;
    farm.intercept({ path: "/api/renders/r-42", method: "GET" }).reply(200, reviewing);
    farm.intercept({ path: "/api/renders/r-42/reviews/rev-7", method: "POST" }).reply((options) => {
      request = seen(options);
      return { statusCode: 204, data: "" };
    });
    farm
      .intercept({ path: "/api/renders/r-42", method: "GET" })
      .reply(200, { state: "rendering", review: { id: "rev-7", state: "answered" } });
    const rest = adapter();
    await rest.doRespond?.(ref, { "rev-7": { action: "accept", content: { verdict: "ship" } } }, createTestContext());
    expect(request?.body).toEqual({ verdict: "ship" });
    expect(request?.headers["authorization"]).toBe(`Bearer ${renderFarmToken}`);
    await expect(rest.doGetStatus(ref, createTestContext())).resolves.toMatchObject({ status: "working" });
  });

  it("sends the decline body when the person declines", async () => {
    let request: SeenRequest | undefined;
    farm.intercept({ path: "/api/renders/r-42", method: "GET" }).reply(200, reviewing);
    farm.intercept({ path: "/api/renders/r-42/reviews/rev-7", method: "POST" }).reply((options) => {
      request = seen(options);
      return { statusCode: 200, data: {} };
    });
    await adapter().doRespond?.(ref, { "rev-7": { action: "decline" } }, createTestContext());
    expect(request?.body).toEqual({ verdict: "redo" });
  });

  it("sends nothing for a key that is no longer outstanding", async () => {
    farm
      .intercept({ path: "/api/renders/r-42", method: "GET" })
      .reply(200, { state: "needs_review", review: { id: "rev-8", question: "again?" } });
    await adapter().doRespond?.(
      ref,
      { "rev-7": { action: "accept", content: { verdict: "ship" } } },
      createTestContext(),
    );
  });

  it("ignores a 409 (answered elsewhere) and surfaces other failures", async () => {
    farm.intercept({ path: "/api/renders/r-42", method: "GET" }).reply(200, reviewing).times(2);
    farm
      .intercept({ path: "/api/renders/r-42/reviews/rev-7", method: "POST" })
      .reply(409, { message: "already answered" });
    await adapter().doRespond?.(
      ref,
      { "rev-7": { action: "accept", content: { verdict: "ship" } } },
      createTestContext(),
    );
    farm.intercept({ path: "/api/renders/r-42/reviews/rev-7", method: "POST" }).reply(500, { message: "oops" });
    await expect(
      adapter().doRespond?.(ref, { "rev-7": { action: "accept", content: { verdict: "ship" } } }, createTestContext()),
    ).rejects.toBeInstanceOf(UpstreamError);
  });

  it("encodes an answer value that tries to leave its JSON string", async () => {
    let request: SeenRequest | undefined;
    farm.intercept({ path: "/api/renders/r-42", method: "GET" }).reply(200, reviewing);
    farm.intercept({ path: "/api/renders/r-42/reviews/rev-7", method: "POST" }).reply((options) => {
      request = seen(options);
      return { statusCode: 200, data: {} };
    });
    const freeText = {
      ...renderFarmConfig().inputRequired!,
      schema: { type: "object" as const, properties: { verdict: { type: "string" } }, required: ["verdict"] },
    };
    await adapter({ inputRequired: freeText }).doRespond?.(
      ref,
      { "rev-7": { action: "accept", content: { verdict: 'ship", "force": true, "x": "' } } },
      createTestContext(),
    );
    expect(request?.body).toEqual({ verdict: 'ship", "force": true, "x": "' });
  });

  it("offers no doRespond when the config has no inputRequired block", () => {
    const config = renderFarmConfig();
    const { inputRequired: _omitted, ...withoutInput } = config;
    const rest = restAdapter(
      { ...withoutInput, status: { ...config.status!, inputRequired: [] } },
      { dispatcher: agent, environment },
    );
    expect(rest.doRespond).toBeUndefined();
  });
});

describe("rest adapter: cancel", () => {
  it("sends the cancel request; the task stays working until the upstream shows the cancel", async () => {
    let cancelled = false;
    farm.intercept({ path: "/api/renders/r-42/abort", method: "POST" }).reply(() => {
      cancelled = true;
      return { statusCode: 202, data: {} };
    });
    farm.intercept({ path: "/api/renders/r-42", method: "GET" }).reply(200, { state: "rendering" });
    farm.intercept({ path: "/api/renders/r-42", method: "GET" }).reply(200, { state: "aborted" });
    const rest = adapter();
    await rest.doCancel?.(ref, createTestContext());
    expect(cancelled).toBe(true);
    await expect(rest.doGetStatus(ref, createTestContext())).resolves.toMatchObject({ status: "working" });
    await expect(rest.doGetStatus(ref, createTestContext())).resolves.toMatchObject({ status: "cancelled" });
  });

  it("ignores a 409 from a job that already finished", async () => {
    farm.intercept({ path: "/api/renders/r-42/abort", method: "POST" }).reply(409, { message: "already done" });
    await expect(adapter().doCancel?.(ref, createTestContext())).resolves.toBeUndefined();
  });

  it("raises JobNotFoundError when the job is gone (the status read agrees)", async () => {
    farm.intercept({ path: "/api/renders/r-42/abort", method: "POST" }).reply(404, "");
    farm.intercept({ path: "/api/renders/r-42", method: "GET" }).reply(404, "");
    await expect(adapter().doCancel?.({ id: "r-42", createdAt: 0 }, createTestContext())).rejects.toBeInstanceOf(
      JobNotFoundError,
    );
  });

  it("asks to try again when a job submitted moments ago is not listed yet", async () => {
    farm.intercept({ path: "/api/renders/r-42/abort", method: "POST" }).reply(404, "");
    farm.intercept({ path: "/api/renders/r-42", method: "GET" }).reply(404, "");
    const failure = await adapter()
      .doCancel?.(ref, createTestContext())
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect((failure as UpstreamError).isRetryable).toBe(true);
  });

  it("offers no doCancel when the config has no cancel block", () => {
    const { cancel: _omitted, ...withoutCancel } = renderFarmConfig();
    expect(restAdapter(withoutCancel, { dispatcher: agent, environment }).doCancel).toBeUndefined();
  });
});
