import { UpstreamError, withSecretRedaction } from "@jobtasks/core";
import { afterEach, describe, expect, it } from "vitest";
import { restAdapter } from "./rest-adapter.js";
import { renderFarmConfig, renderFarmOrigin, renderFarmToken } from "./test-support/render-farm-config.js";
import { createTestContext } from "@jobtasks/testkit";
import { mockAgent } from "./test-support/mock-agent.js";

// Upstream bodies are bounded in size (maxResponseBytes) and in depth (a body nested beyond the limit is an
// upstream error, never a stack overflow in redaction, rendering or paths), and rendering them is linear in
// their size: the result's text block is compact JSON, so depth does not multiply it.
const agent = mockAgent();
const farm = agent.get(renderFarmOrigin);
afterEach(() => agent.assertNoPendingInterceptors());

const ref = { id: "r-42", createdAt: 0 };
// As the server calls it: the core's redaction walks every result, so it must take the depths the adapter takes.
const adapter = () =>
  withSecretRedaction(
    restAdapter(renderFarmConfig(), { dispatcher: agent, environment: { RENDER_TOKEN: renderFarmToken } }),
  );
function nested(depth: number): string {
  return `${"[".repeat(depth)}1${"]".repeat(depth)}`;
}
function replyRaw(text: string) {
  farm
    .intercept({ path: "/api/renders/r-42", method: "GET" })
    .reply(200, text, { headers: { "content-type": "application/json" } });
}

describe("rest adapter: deeply nested bodies", () => {
  it("renders a nested result as compact text whose size follows the body's, not its depth squared", async () => {
    const body = `{"state":"done","output":{"tree":${nested(250)}}}`;
    replyRaw(body);
    const snapshot = await adapter().doGetStatus(ref, createTestContext());
    expect(snapshot.status).toBe("completed");
    const text = (snapshot.result?.content[0] as { text: string }).text;
    expect(text.length).toBeLessThan(body.length);
    expect(JSON.parse(text)).toEqual({ tree: JSON.parse(nested(250)) });
    expect(snapshot.result?.structuredContent).toEqual({ tree: JSON.parse(nested(250)) });
  });

  it("answers a body nested beyond the depth limit with a non-retryable upstream error, not a stack overflow", async () => {
    for (const depth of [1_000, 20_000]) {
      replyRaw(`{"state":"done","output":${nested(depth)}}`);
      const failure = await adapter()
        .doGetStatus(ref, createTestContext())
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(UpstreamError);
      expect(failure).toMatchObject({ isRetryable: false });
      expect((failure as Error).message).toMatch(/nested more than \d+ levels/);
    }
  });

  it("reads a deeply nested error body as no reason, keeping its status's meaning", async () => {
    farm.intercept({ path: "/api/renders/r-42", method: "GET" }).reply(503, `{"error":${nested(5_000)}}`);
    await expect(adapter().doGetStatus(ref, createTestContext())).rejects.toMatchObject({
      httpStatus: 503,
      isRetryable: true,
    });
  });
});
