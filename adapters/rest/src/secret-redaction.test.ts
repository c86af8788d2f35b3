import { withSecretRedaction } from "@jobtasks/core";
import { createTestContext, findSecretLeaks } from "@jobtasks/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { restAdapter } from "./rest-adapter.js";
import type { RestOptions } from "./rest-options.js";
import { mockAgent } from "./test-support/mock-agent.js";

const agent = mockAgent();
const origin = "https://jobs.example.test";
const token = "tok-SECRET-0123456789abcdef";
afterEach(() => agent.assertNoPendingInterceptors());

const options: RestOptions = {
  baseUrl: origin,
  auth: { type: "bearer", tokenEnv: "JOBS_TOKEN" },
  tools: [{ name: "t", description: "d", submit: { url: "/jobs" } }],
  reference: { path: "id" },
  status: { url: "/jobs/{{job.id}}", field: "state", working: ["running"], completed: ["done"] },
};
/** The adapter as its factory builds it: it declares its credentials and redacts nothing itself. */
const unwrapped = (auth: RestOptions["auth"] = options.auth) =>
  restAdapter({ ...options, auth }, { dispatcher: agent, environment: { JOBS_TOKEN: token, JOBS_PASSWORD: token } });

/** What the same read gives (or throws, and logs) unwrapped, then as the server calls it. */
async function readBothWays(arrange: () => void) {
  const seen: unknown[] = [];
  for (const adapter of [unwrapped(), withSecretRedaction(unwrapped())]) {
    arrange();
    const context = createTestContext();
    seen.push(
      await adapter.doGetStatus({ id: "j1", createdAt: 0 }, context).then(
        (snapshot) => ({ snapshot, logEntries: context.logEntries }),
        (error: unknown) => ({ error, logEntries: context.logEntries }),
      ),
    );
  }
  return { raw: seen[0], wrapped: seen[1] };
}

describe("the REST credentials, through the core's redaction", () => {
  it("declares each credential in the forms it sends it", () => {
    expect(unwrapped().secrets).toEqual([token]);
    const basic = unwrapped({ type: "basic", username: "robot", passwordEnv: "JOBS_PASSWORD" });
    expect(basic.secrets).toEqual([token, Buffer.from(`robot:${token}`).toString("base64")]);
  });

  it("leaves no part of the token in an error built from the upstream's answer, even where the answer was cut", async () => {
    // The reason is cut to 200 characters; this cut falls inside the token.
    const message = `${"x".repeat(188)} ${token} was refused`;
    const { raw, wrapped } = await readBothWays(() =>
      agent.get(origin).intercept({ path: "/jobs/j1", method: "GET" }).reply(400, { message }),
    );
    expect(findSecretLeaks(raw, [token.slice(0, 11)], "the unwrapped adapter's error")).not.toEqual([]);
    expect((wrapped as { error: Error }).error.message).toMatch(/x \[redacted\]…$/);
    expect(findSecretLeaks(wrapped, [token, token.slice(0, 8)], "the wrapped adapter's error")).toEqual([]);
  });

  it("leaves it out of a completed result, its text block and the log of a refused redirect", async () => {
    const { raw, wrapped } = await readBothWays(() =>
      agent
        .get(origin)
        .intercept({ path: "/jobs/j1", method: "GET" })
        .reply(200, { state: "done", output: { echoed: `Bearer ${token}` } }),
    );
    expect(findSecretLeaks(raw, [token], "the unwrapped adapter's snapshot")).not.toEqual([]);
    expect(findSecretLeaks(wrapped, [token], "the wrapped adapter's snapshot")).toEqual([]);
    expect(JSON.stringify((wrapped as { snapshot: unknown }).snapshot)).toContain("Bearer [redacted]");

    const redirected = await readBothWays(() =>
      agent
        .get(origin)
        .intercept({ path: "/jobs/j1", method: "GET" })
        .reply(302, "", { headers: { location: `https://${token.toLowerCase()}.evil.test/x` } }),
    );
    const lowered = token.toLowerCase();
    expect(findSecretLeaks(redirected.raw, [lowered], "the unwrapped adapter's error and log")).not.toEqual([]);
    expect(findSecretLeaks(redirected.wrapped, [lowered], "the wrapped adapter's error and log")).toEqual([]);
  });
});
