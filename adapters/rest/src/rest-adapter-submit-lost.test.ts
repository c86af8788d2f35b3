import { OutcomeUnknownError, UpstreamError } from "@jobtasks/core";
import { afterEach, describe, expect, it } from "vitest";
import { restAdapter } from "./rest-adapter.js";
import type { RestOptions } from "./rest-options.js";
import { createTestContext } from "@jobtasks/testkit";
import { mockAgent, seen } from "./test-support/mock-agent.js";

// Once the upstream may have acted on a submit (it answered 2xx, or the POST was sent and its answer was
// lost), "try again" would start a second job. Such failures are non-retryable and say so, unless an
// idempotency header with retries is configured: then the retry under the same key is safe, and it happens.
const agent = mockAgent();
const origin = "https://api.example.test";
afterEach(() => agent.assertNoPendingInterceptors());

type Submit = NonNullable<RestOptions["tools"]>[number]["submit"];
function options(submit: Partial<Submit>, extra: Partial<RestOptions> = {}): RestOptions {
  return {
    baseUrl: origin,
    timeoutMs: 100,
    tools: [{ name: "t", description: "d", submit: { url: "/jobs", ...submit } }],
    reference: { path: "id" },
    status: { url: "/jobs/{{job.id}}", field: "state" },
    ...extra,
  };
}
const start = (submit: Partial<Submit> = {}, extra: Partial<RestOptions> = {}) =>
  restAdapter(options(submit, extra), { dispatcher: agent }).tools[0]!.doStart({}, createTestContext());

async function failureOf(promise: Promise<unknown>): Promise<UpstreamError> {
  const failure = await promise.catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(UpstreamError);
  return failure as UpstreamError;
}
const mayHaveStarted = /may have been created.*not be submitted again/;

/** Says so in words for the agent, and as the core's OutcomeUnknownError for code. */
function expectMayHaveStarted(failure: UpstreamError): void {
  expect(failure.message).toMatch(mayHaveStarted);
  expect(failure).toBeInstanceOf(OutcomeUnknownError);
}

describe("rest adapter: a submit whose outcome is unknown is never retried blindly", () => {
  it("refuses to invite a retry after a 2xx whose body is not JSON", async () => {
    agent.get(origin).intercept({ path: "/jobs", method: "POST" }).reply(201, "<html>created</html>");
    const failure = await failureOf(start());
    expect(failure.isRetryable).toBe(false);
    expect(failure.message).toMatch(/HTTP 201/);
    expectMayHaveStarted(failure);
  });

  it("refuses to invite a retry after a POST that timed out once sent", async () => {
    agent.get(origin).intercept({ path: "/jobs", method: "POST" }).reply(201, { id: "j1" }).delay(1_000);
    const failure = await failureOf(start());
    expect(failure.isRetryable).toBe(false);
    expect(failure.message).toMatch(/timed out/);
    expectMayHaveStarted(failure);
  });

  it("says a job may have been created when a 2xx carries no usable job reference", async () => {
    agent.get(origin).intercept({ path: "/jobs", method: "POST" }).reply(202, { accepted: true });
    const missing = await failureOf(start());
    expect(missing.isRetryable).toBe(false);
    expect(missing.message).toMatch(/no job reference/);
    expectMayHaveStarted(missing);
    agent
      .get(origin)
      .intercept({ path: "/jobs", method: "POST" })
      .reply(201, { id: "x".repeat(600) });
    expectMayHaveStarted(await failureOf(start()));
  });

  it("says a job may have been created when the status URL it names is on a foreign origin", async () => {
    agent
      .get(origin)
      .intercept({ path: "/jobs", method: "POST" })
      .reply(202, "", { headers: { "operation-location": "https://elsewhere.example.test/ops/1" } });
    const failure = await failureOf(
      start({}, { reference: { header: ["Operation-Location"] }, status: { field: "state" } }),
    );
    expect(failure.isRetryable).toBe(false);
    expectMayHaveStarted(failure);
  });

  it("retries under the same idempotency key when one is configured with retries", async () => {
    const keys: string[] = [];
    agent
      .get(origin)
      .intercept({ path: "/jobs", method: "POST" })
      .reply((request) => {
        keys.push(seen(request).headers["idempotency-key"] ?? "");
        return { statusCode: 201, data: "<html>created</html>" };
      });
    agent
      .get(origin)
      .intercept({ path: "/jobs", method: "POST" })
      .reply((request) => {
        keys.push(seen(request).headers["idempotency-key"] ?? "");
        return { statusCode: 201, data: { id: "j1" } };
      });
    await expect(start({ idempotencyHeader: "Idempotency-Key", retries: 1 })).resolves.toMatchObject({
      ref: { id: "j1" },
    });
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
  });

  it("keeps a refused connection retryable: the request never left", async () => {
    agent
      .get(origin)
      .intercept({ path: "/jobs", method: "POST" })
      .replyWithError(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }));
    const failure = await failureOf(start());
    expect(failure.isRetryable).toBe(true);
    expect(failure.message).not.toMatch(mayHaveStarted);
    expect(failure).not.toBeInstanceOf(OutcomeUnknownError);
  });
});
