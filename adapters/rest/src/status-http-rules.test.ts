import { JobNotFoundError } from "@jobtasks/core";
import { afterEach, describe, expect, it } from "vitest";
import { restAdapter } from "./rest-adapter.js";
import { restOptionsSchema } from "./rest-options.js";
import { createTestContext } from "@jobtasks/testkit";
import { mockAgent } from "./test-support/mock-agent.js";

// status.http merges over the defaults (202 working, 404 and 410 gone): adding a rule for 200 must not
// turn a running operation's 202 into an error, nor a vanished job's 404 into a plain refusal.
const agent = mockAgent();
const origin = "https://lro.example.test";
afterEach(() => agent.assertNoPendingInterceptors());

const options = (http: Record<string, "working" | "completed" | "gone">) => ({
  preset: "azure-lro" as const,
  baseUrl: origin,
  tools: [{ name: "t", description: "d", submit: { url: "/analyze" } }],
  // field repeats the preset's: RestOptions types a user's status block whole.
  status: { field: "status", http },
});

describe("status.http rules", () => {
  it("keeps the default rules for codes the user does not name", () => {
    expect(restOptionsSchema.parse(options({ "200": "completed" })).status.http).toEqual({
      "200": "completed",
      "202": "working",
      "404": "gone",
      "410": "gone",
    });
  });

  it("lets the user override a default rule explicitly", () => {
    expect(restOptionsSchema.parse(options({ "404": "working" })).status.http).toEqual({
      "202": "working",
      "404": "working",
      "410": "gone",
    });
  });

  it("reads a running operation's 202 as working and a 404 as gone with a partial map", async () => {
    const adapter = restAdapter(options({ "200": "completed" }), { dispatcher: agent });
    agent.get(origin).intercept({ path: "/ops/1", method: "GET" }).reply(202, "");
    await expect(adapter.doGetStatus({ id: "/ops/1", createdAt: 0 }, createTestContext())).resolves.toMatchObject({
      status: "working",
    });
    agent.get(origin).intercept({ path: "/ops/1", method: "GET" }).reply(200, "");
    await expect(adapter.doGetStatus({ id: "/ops/1", createdAt: 0 }, createTestContext())).resolves.toMatchObject({
      status: "completed",
    });
    agent.get(origin).intercept({ path: "/ops/1", method: "GET" }).reply(404, "");
    await expect(adapter.doGetStatus({ id: "/ops/1", createdAt: 0 }, createTestContext())).rejects.toBeInstanceOf(
      JobNotFoundError,
    );
  });
});
