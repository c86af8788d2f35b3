import { InvalidToolInputError } from "@jobtasks/core";
import { afterEach, describe, expect, it } from "vitest";
import { restAdapter } from "./rest-adapter.js";
import type { RestOptions } from "./rest-options.js";
import { createTestContext } from "@jobtasks/testkit";
import { mockAgent } from "./test-support/mock-agent.js";
import { buildUrl } from "./url-builder.js";

// Tool input and answers are untrusted: whatever their shape, a request stays under baseUrl's path.
// Only values from the upstream (job.*, body.*) may be whole URLs, checked against the allowed origins.
const agent = mockAgent();
const origin = "https://api.example.test";
afterEach(() => agent.assertNoPendingInterceptors());

function tenantAdapter(submit: NonNullable<RestOptions["tools"]>[number]["submit"]) {
  return restAdapter(
    {
      baseUrl: `${origin}/v1/tenant-a`,
      auth: { type: "bearer", token: "tenant-a-token" },
      tools: [{ name: "t", description: "d", input: { target: "string", p: "string?" }, submit }],
      reference: { path: "id" },
      status: { url: "/jobs/{{job.id}}", field: "state" },
    },
    { dispatcher: agent },
  ).tools[0]!;
}

describe("rest adapter: requests stay under baseUrl whatever the input", () => {
  it("treats a single-placeholder submit URL from the input as one encoded path segment under baseUrl", async () => {
    let path: string | undefined;
    agent
      .get(origin)
      .intercept({ path: "/v1/tenant-a/%2Fv1%2Ftenant-b%2Fadmin", method: "POST" })
      .reply((options) => {
        path = options.path;
        return { statusCode: 201, data: { id: "1" } };
      });
    await tenantAdapter({ url: "{{input.target}}" }).doStart({ target: "/v1/tenant-b/admin" }, createTestContext());
    expect(path).toBe("/v1/tenant-a/%2Fv1%2Ftenant-b%2Fadmin");
  });

  it("refuses dot segments in a multi-segment submit URL, naming the input field", async () => {
    const failure = await tenantAdapter({ url: "{{*input.target}}" })
      .doStart({ target: "../tenant-b/admin" }, createTestContext())
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InvalidToolInputError);
    expect(failure).toMatchObject({ field: "target" });
  });

  it("names the input field when a header value would split the header", async () => {
    const failure = await tenantAdapter({ url: "/jobs", headers: { "X-P": "{{input.p}}" } })
      .doStart({ target: "a", p: "x\r\ny" }, createTestContext())
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InvalidToolInputError);
    expect(failure).toMatchObject({ field: "p" });
  });

  it("takes a whole URL only from upstream values, never from an answer", () => {
    const policy = { baseUrl: new URL(`${origin}/v1/tenant-a`), allowedOrigins: new Set<string>() };
    expect(buildUrl(policy, "{{job.id}}", undefined, { job: { id: "/v1/tenant-a/ops/1" } }).pathname).toBe(
      "/v1/tenant-a/ops/1",
    );
    expect(buildUrl(policy, "{{answer.url}}", undefined, { answer: { url: `${origin}/v1/tenant-b` } }).href).toBe(
      `${origin}/v1/tenant-a/${encodeURIComponent(`${origin}/v1/tenant-b`)}`,
    );
  });
});
