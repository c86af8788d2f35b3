import { AdapterConfigError, UpstreamError } from "@jobtasks/core";
import { afterEach, describe, expect, it } from "vitest";
import { restAdapter } from "./rest-adapter.js";
import type { RestOptions } from "./rest-options.js";
import { createTestContext } from "@jobtasks/testkit";
import { mockAgent, seen } from "./test-support/mock-agent.js";

// A submit is retried only when the user opts in with retries under an idempotency header; a correlation
// header is for tracing and never makes a retry safe. The job reference is bounded: it travels in every task id.
const agent = mockAgent();
const origin = "https://api.example.test";
afterEach(() => agent.assertNoPendingInterceptors());

type Submit = NonNullable<RestOptions["tools"]>[number]["submit"];
function options(submit: Partial<Submit>): RestOptions {
  return {
    baseUrl: origin,
    tools: [{ name: "t", description: "d", submit: { url: "/jobs", ...submit } }],
    reference: { path: "id" },
    status: { url: "/jobs/{{job.id}}", field: "state" },
  };
}
const start = (submit: Partial<Submit>) =>
  restAdapter(options(submit), { dispatcher: agent }).tools[0]!.doStart({}, createTestContext());

describe("rest adapter: submit retries and limits", () => {
  it("does not retry under an idempotency header unless retries opts in", async () => {
    const keys: string[] = [];
    agent
      .get(origin)
      .intercept({ path: "/jobs", method: "POST" })
      .reply((request) => {
        keys.push(seen(request).headers["idempotency-key"] ?? "");
        return { statusCode: 503, data: { message: "busy" } };
      });
    await expect(start({ idempotencyHeader: "Idempotency-Key" })).rejects.toMatchObject({ httpStatus: 503 });
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("sends a fresh correlation header on a submit without ever retrying it", async () => {
    const ids: string[] = [];
    agent
      .get(origin)
      .intercept({ path: "/jobs", method: "POST" })
      .reply((request) => {
        ids.push(seen(request).headers["x-ms-client-request-id"] ?? "");
        return { statusCode: 503, data: {} };
      });
    await expect(start({ correlationHeader: "x-ms-client-request-id" })).rejects.toBeInstanceOf(UpstreamError);
    expect(ids).toHaveLength(1);
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("refuses retries without an idempotency header, naming the field", () => {
    const build = () => restAdapter(options({ retries: 2 }));
    expect(build).toThrow(AdapterConfigError);
    expect(build).toThrow(/tools\[0\]\.submit\.retries/);
  });

  it("refuses a job reference longer than 512 characters instead of sealing it into every task id", async () => {
    agent
      .get(origin)
      .intercept({ path: "/jobs", method: "POST" })
      .reply(201, { id: "x".repeat(513) });
    const failure = await start({}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ isRetryable: false });
    expect((failure as Error).message).toMatch(/513 characters.*512/);
    agent
      .get(origin)
      .intercept({ path: "/jobs", method: "POST" })
      .reply(201, { id: "x".repeat(512) });
    await expect(start({})).resolves.toMatchObject({ ref: { id: "x".repeat(512) } });
  });
});
