import { afterEach, describe, expect, it } from "vitest";
import { restAdapter } from "./rest-adapter.js";
import { fixture } from "./test-support/fixtures.js";
import { createTestContext } from "@jobtasks/testkit";
import { mockAgent, seen, type SeenRequest } from "./test-support/mock-agent.js";

// Google AIP-151 operations: the submit answers the operation; poll GET /v2/{name}; cancel POST /v2/{name}:cancel.
const origin = "https://run.example.test";
const agent = mockAgent();
const service = agent.get(origin);
afterEach(() => agent.assertNoPendingInterceptors());

const token = "ya29.google-access-token-value";
const operationName = "projects/demo-project/locations/us-central1/operations/operation-1732097702-6a1b";
const operationPath = `/v2/${operationName}`;

function adapter() {
  return restAdapter(
    {
      preset: "google-operation",
      baseUrl: `${origin}/v2`,
      auth: { type: "bearer", token },
      tools: [
        {
          name: "run_job",
          description: "Execute a Cloud Run job.",
          input: { job: "string", taskCount: { type: "integer", default: 1, minimum: 1 } },
          submit: {
            url: "/projects/demo-project/locations/us-central1/jobs/{{input.job}}:run",
            body: { overrides: { taskCount: "{{input.taskCount}}" } },
            firstSnapshot: true,
          },
        },
      ],
    },
    { dispatcher: agent },
  );
}

describe("google-operation preset", () => {
  it("runs a job end to end: the operation name as reference, done absent then true, response as result", async () => {
    let submit: SeenRequest | undefined;
    service
      .intercept({ path: "/v2/projects/demo-project/locations/us-central1/jobs/nightly-report:run", method: "POST" })
      .reply((options) => {
        submit = seen(options);
        return { statusCode: 200, data: fixture("google-operation-running") };
      });
    service.intercept({ path: operationPath, method: "GET" }).reply(200, fixture("google-operation-running"));
    service.intercept({ path: operationPath, method: "GET" }).reply(200, fixture("google-operation-done"));

    const rest = adapter();
    const started = await rest.tools[0]!.doStart({ job: "nightly-report", taskCount: 2 }, createTestContext());
    expect(started.ref.id).toBe(operationName);
    expect(started.snapshot).toMatchObject({ status: "working", pollIntervalMs: 5_000 });
    expect(submit?.body).toEqual({ overrides: { taskCount: 2 } });
    expect(submit?.headers["authorization"]).toBe(`Bearer ${token}`);

    await expect(rest.doGetStatus(started.ref, createTestContext())).resolves.toMatchObject({ status: "working" });
    const done = await rest.doGetStatus(started.ref, createTestContext());
    expect(done).toMatchObject({
      status: "completed",
      result: { structuredContent: { succeededCount: 1, failedCount: 0 } },
    });
    expect(done.result?.isError).toBeUndefined();
  });

  it("maps done with an error to completed with isError, and error code 1 to cancelled", async () => {
    const ref = { id: operationName, createdAt: Date.now() };
    service.intercept({ path: operationPath, method: "GET" }).reply(200, fixture("google-operation-error"));
    service.intercept({ path: operationPath, method: "GET" }).reply(200, fixture("google-operation-cancelled"));
    const rest = adapter();
    const failed = await rest.doGetStatus(ref, createTestContext());
    expect(failed).toMatchObject({ status: "completed", rawStatus: "9", result: { isError: true } });
    expect((failed.result?.content[0] as { text: string }).text).toContain("failed with exit code 1");
    await expect(rest.doGetStatus(ref, createTestContext())).resolves.toMatchObject({
      status: "cancelled",
      rawStatus: "1",
    });
  });

  it("cancels with POST {name}:cancel", async () => {
    let cancel: SeenRequest | undefined;
    service.intercept({ path: `${operationPath}:cancel`, method: "POST" }).reply((options) => {
      cancel = seen(options);
      return { statusCode: 200, data: {} };
    });
    await adapter().doCancel!({ id: operationName, createdAt: Date.now() }, createTestContext());
    expect(cancel?.body).toEqual({});
  });

  it("refuses an operation name that would climb out of the base path", async () => {
    await expect(
      adapter().doGetStatus({ id: "operations/../../admin", createdAt: Date.now() }, createTestContext()),
    ).rejects.toMatchObject({ name: "UpstreamError", isRetryable: false });
  });
});
