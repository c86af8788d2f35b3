import { afterEach, describe, expect, it } from "vitest";
import { restAdapter } from "./rest-adapter.js";
import { fixture } from "./test-support/fixtures.js";
import { createTestContext } from "@jobtasks/testkit";
import { mockAgent } from "./test-support/mock-agent.js";

// What a person reads in statusMessage while a Google operation runs and once it is done: the operation's
// own words (metadata state, progress, status message; the error's message), never `false`, `1` or `2`.
const origin = "https://ops.example.test";
const agent = mockAgent();
const service = agent.get(origin);
afterEach(() => agent.assertNoPendingInterceptors());

const operationName = "projects/p/locations/l/operations/op-7";
const ref = { id: operationName, createdAt: Date.now() };
const adapter = restAdapter(
  {
    preset: "google-operation",
    baseUrl: `${origin}/v1`,
    tools: [{ name: "export", description: "Export a database.", submit: { url: "/projects/p/databases/d:export" } }],
  },
  { dispatcher: agent },
);

async function messageFor(body: object): Promise<string | undefined> {
  service.intercept({ path: `/v1/${operationName}`, method: "GET" }).reply(200, body);
  return (await adapter.doGetStatus(ref, createTestContext())).message;
}

describe("google-operation preset: status messages", () => {
  it.each([
    [
      "state, progress and status message",
      { metadata: { state: "RUNNING", progressPercent: 40, statusMessage: "Copying tables" } },
      "RUNNING (40%): Copying tables",
    ],
    [
      "state and a nested progress percent",
      { done: false, metadata: { state: "PROCESSING", progress: { progressPercent: 25 } } },
      "PROCESSING (25%)",
    ],
    ["state and a numeric progress", { metadata: { state: "RUNNING", progress: 60 } }, "RUNNING (60%)"],
    ["state alone", { metadata: { state: "PENDING" } }, "PENDING"],
    [
      "verb and status message",
      { metadata: { verb: "create", statusMessage: "Provisioning nodes" } },
      "create: Provisioning nodes",
    ],
    ["a verb alone", { metadata: { verb: "update", target: "projects/p/clusters/c" } }, "update: running"],
    ["metadata without any of those", fixture("google-operation-running"), "running"],
    ["no metadata at all", { name: operationName }, "running"],
  ])("while running, with %s", async (_case, body, message) => {
    await expect(messageFor(body)).resolves.toBe(message);
  });

  it("names the error's message for an operation done with an error, and for a cancelled one", async () => {
    await expect(messageFor(fixture("google-operation-error"))).resolves.toBe(
      "failed: Task nightly-report-x7k2p-task0 failed with exit code 1.",
    );
    await expect(messageFor(fixture("google-operation-cancelled"))).resolves.toBe(
      "cancelled: Operation was cancelled.",
    );
    await expect(messageFor({ done: true, error: { code: 13 } })).resolves.toBe("failed: error code 13");
  });

  it("says succeeded (or the metadata's final state) for an operation done with a response", async () => {
    await expect(messageFor(fixture("google-operation-done"))).resolves.toBe("succeeded");
    await expect(messageFor({ done: true, metadata: { state: "SUCCESSFUL" }, response: {} })).resolves.toBe(
      "SUCCESSFUL",
    );
  });
});
