import { UpstreamError, withSecretRedaction } from "@jobtasks/core";
import { afterEach, describe, expect, it } from "vitest";
import { restAdapter } from "./rest-adapter.js";
import type { RestOptions } from "./rest-options.js";
import { createTestContext } from "@jobtasks/testkit";
import { mockAgent } from "./test-support/mock-agent.js";

// Error messages can carry URLs the upstream chose (a redirect target, an Operation-Location value), and
// the core puts them into statusMessage and the logs. The adapter is called as the server calls it, through
// the core's redaction of its declared secrets, which reaches every error, its causes included (JSON.parse
// quotes the text it could not read).
const agent = mockAgent();
const origin = "https://jobs.example.test";
const token = "tok-SECRET-0123456789";
afterEach(() => agent.assertNoPendingInterceptors());

const options: RestOptions = {
  baseUrl: origin,
  auth: { type: "bearer", tokenEnv: "JOBS_TOKEN" },
  tools: [{ name: "t", description: "d", submit: { url: "/jobs" } }],
  reference: { header: ["Operation-Location"] },
  status: { field: "state", working: ["running"], completed: ["done"] },
};
const adapter = () =>
  withSecretRedaction(restAdapter(options, { dispatcher: agent, environment: { JOBS_TOKEN: token } }));

function everyMessage(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current instanceof Error && depth < 10; current = current.cause, depth++) {
    parts.push(current.message, current.stack ?? "");
  }
  return parts.join("\n");
}

describe("rest adapter: secrets in error messages", () => {
  it("redacts a secret in a redirect target the status read was sent to", async () => {
    agent
      .get(origin)
      .intercept({ path: "/ops/1", method: "GET" })
      .reply(302, "", { headers: { location: `/echo/${token}` } });
    agent
      .get(origin)
      .intercept({ path: `/echo/${token}`, method: "GET" })
      .reply(200, `<html>${token}</html>`);
    const failure = await adapter()
      .doGetStatus({ id: "/ops/1", createdAt: 0 }, createTestContext())
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect((failure as Error).message).toMatch(/not valid JSON/);
    expect(everyMessage(failure)).not.toContain(token);
    // The message names the request, not its URL, so the redirect target is not in it at all.
    expect((failure as Error).message).not.toContain("/echo/");
    // JSON.parse's excerpt of the body (which could hold part of a secret) is not kept either.
    expect(everyMessage(failure)).not.toContain("<html>");
  });

  it("redacts a secret in a foreign redirect origin it refused", async () => {
    agent
      .get(origin)
      .intercept({ path: "/ops/1", method: "GET" })
      .reply(302, "", { headers: { location: `https://${token.toLowerCase()}.evil.test/x` } });
    const failure = await adapter()
      .doGetStatus({ id: "/ops/1", createdAt: 0 }, createTestContext())
      .catch((error: unknown) => error);
    expect((failure as Error).message).toMatch(/redirected to/);
    expect(everyMessage(failure).toLowerCase()).not.toContain(token.toLowerCase());
  });

  it("redacts a secret in an Operation-Location on a foreign origin named by the submit answer", async () => {
    agent
      .get(origin)
      .intercept({ path: "/jobs", method: "POST" })
      .reply(202, "", { headers: { "operation-location": `https://${token}.elsewhere.test/ops/1` } });
    const failure = await adapter()
      .tools[0]!.doStart({}, createTestContext())
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect((failure as Error).message).toMatch(/status URL/);
    expect(everyMessage(failure).toLowerCase()).not.toContain(token.toLowerCase());
  });

  it("redacts a timed-out submit whose causes include a DOMException with a read-only message", async () => {
    agent.get(origin).intercept({ path: "/jobs", method: "POST" }).reply(201, { id: "j1" }).delay(1_000);
    const timed = withSecretRedaction(
      restAdapter({ ...options, timeoutMs: 100 }, { dispatcher: agent, environment: { JOBS_TOKEN: token } }),
    );
    const failure = await timed.tools[0]!.doStart({}, createTestContext()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect((failure as Error).message).toMatch(/timed out/);
    // Every message along the cause chain can still be read from the redacted copy.
    expect(everyMessage(failure)).not.toContain(token);
  });
});
