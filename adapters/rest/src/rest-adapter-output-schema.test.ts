import { afterEach, describe, expect, it } from "vitest";
import { restAdapter } from "./rest-adapter.js";
import type { RestOptions } from "./rest-options.js";
import { createTestContext } from "@jobtasks/testkit";
import { mockAgent } from "./test-support/mock-agent.js";

// A tool that declares an outputSchema promises structuredContent that matches it, and official clients
// reject a successful result that does not. A mismatch is reported (isError, naming the field, the
// upstream's value kept as text) instead of being handed out as a success the client would throw on.
const agent = mockAgent();
const origin = "https://jobs.example.test";
afterEach(() => agent.assertNoPendingInterceptors());

const outputSchema = {
  type: "object",
  properties: { frames: { type: "integer" }, url: { type: "string" } },
  required: ["frames"],
};
const options: RestOptions = {
  baseUrl: origin,
  tools: [
    { name: "render", description: "d", outputSchema, submit: { url: "/jobs" } },
    { name: "plain", description: "d", submit: { url: "/jobs" } },
  ],
  reference: { path: "id" },
  status: { url: "/jobs/{{job.id}}", field: "state", working: ["running"], completed: ["done"] },
  result: { path: "output" },
};
const adapter = () => restAdapter(options, { dispatcher: agent });
function replyStatus(body: unknown) {
  agent
    .get(origin)
    .intercept({ path: "/jobs/j1", method: "GET" })
    .reply(200, body as object);
}
async function startedRef(toolIndex: number) {
  agent.get(origin).intercept({ path: "/jobs", method: "POST" }).reply(201, { id: "j1" });
  return (await adapter().tools[toolIndex]!.doStart({}, createTestContext())).ref;
}

describe("rest adapter: results checked against the tool's outputSchema", () => {
  it("hands out a result that matches as a success", async () => {
    const ref = await startedRef(0);
    replyStatus({ state: "done", output: { frames: 3, url: "https://cdn.example.test/a" } });
    const snapshot = await adapter().doGetStatus(ref, createTestContext());
    expect(snapshot.result?.isError).toBeUndefined();
    expect(snapshot.result?.structuredContent).toEqual({ frames: 3, url: "https://cdn.example.test/a" });
  });

  it("reports a result missing a required field as an error naming it, keeping the value as text", async () => {
    const ref = await startedRef(0);
    replyStatus({ state: "done", output: { url: "https://cdn.example.test/a" } });
    const snapshot = await adapter().doGetStatus(ref, createTestContext());
    expect(snapshot.status).toBe("completed");
    expect(snapshot.result?.isError).toBe(true);
    expect(snapshot.result?.structuredContent).toBeUndefined();
    const text = snapshot.result?.content.map((block) => (block as { text: string }).text).join("\n");
    expect(text).toMatch(/outputSchema/);
    expect(text).toMatch(/frames/);
    expect(text).toContain("https://cdn.example.test/a");
  });

  it("leaves results of a tool without an outputSchema unchecked", async () => {
    const ref = await startedRef(1);
    replyStatus({ state: "done", output: { url: "https://cdn.example.test/a" } });
    const snapshot = await adapter().doGetStatus(ref, createTestContext());
    expect(snapshot.result?.isError).toBeUndefined();
    expect(snapshot.result?.structuredContent).toEqual({ url: "https://cdn.example.test/a" });
  });

  it("checks the demo-api preset's result (a single tool) even for a reference without a tool name", async () => {
    const demoOrigin = "http://127.0.0.1:4010";
    agent
      .get(demoOrigin)
      .intercept({ path: "/jobs/j1" })
      .reply(200, { status: "succeeded", name: null, steps: [], currentStep: 1, totalSteps: 1, durationMs: 5 });
    const demo = restAdapter({ preset: "demo-api", baseUrl: demoOrigin }, { dispatcher: agent });
    const snapshot = await demo.doGetStatus({ id: "j1", createdAt: 0 }, createTestContext());
    expect(snapshot.result?.isError).toBe(true);
    expect(snapshot.result?.content.map((block) => (block as { text: string }).text).join("\n")).toMatch(/name/);
  });
});
