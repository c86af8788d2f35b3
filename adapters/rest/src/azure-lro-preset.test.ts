import { afterEach, describe, expect, it } from "vitest";
import { restAdapter } from "./rest-adapter.js";
import { fixture } from "./test-support/fixtures.js";
import { createTestContext } from "@jobtasks/testkit";
import { mockAgent, seen, type SeenRequest } from "./test-support/mock-agent.js";

// Azure long-running operations: 202 + Operation-Location, a status monitor with Retry-After.
const origin = "https://contoso.cognitive.example.test";
const agent = mockAgent();
const service = agent.get(origin);
afterEach(() => agent.assertNoPendingInterceptors());

const apiKey = "azure-key-5f0c9d3e7a";
const operationPath = "/formrecognizer/operations/3b5c8e2a-7f41-4d0b-9a6c-1e2f3a4b5c6d?api-version=2026-10-01";

function adapter(overrides = {}) {
  return restAdapter(
    {
      preset: "azure-lro",
      baseUrl: `${origin}/formrecognizer`,
      auth: { type: "header", name: "Ocp-Apim-Subscription-Key", valueEnv: "AZURE_KEY" },
      tools: [
        {
          name: "train_model",
          description: "Train a document model.",
          input: { modelId: "string", source: "string" },
          submit: {
            url: "/models:train",
            query: { "api-version": "2026-10-01" },
            body: { modelId: "{{input.modelId}}", trainingData: { source: "{{input.source}}" } },
          },
        },
      ],
      ...overrides,
    },
    { dispatcher: agent, environment: { AZURE_KEY: apiKey } },
  );
}

describe("azure-lro preset", () => {
  it("runs a job end to end: 202 + Operation-Location, Retry-After pacing, Running, Succeeded with the result", async () => {
    let submit: SeenRequest | undefined;
    service
      .intercept({ path: "/formrecognizer/models:train?api-version=2026-10-01", method: "POST" })
      .reply((options) => {
        submit = seen(options);
        return {
          statusCode: 202,
          data: "",
          responseOptions: { headers: { "operation-location": `${origin}${operationPath}`, "retry-after": "5" } },
        };
      });
    service
      .intercept({ path: operationPath, method: "GET" })
      .reply(200, fixture("azure-operation-running"), { headers: { "retry-after": "4" } });
    service.intercept({ path: operationPath, method: "GET" }).reply(200, fixture("azure-operation-succeeded"));

    const rest = adapter();
    const started = await rest.tools[0]!.doStart(
      { modelId: "invoice-extractor-7", source: "https://blobs.example.test/train" },
      createTestContext(),
    );
    // The status URL is on baseUrl's origin, so only its path (with the api-version query) goes into the reference.
    expect(started.ref.id).toBe(operationPath);
    expect(submit?.headers["ocp-apim-subscription-key"]).toBe(apiKey);
    expect(submit?.body).toEqual({
      modelId: "invoice-extractor-7",
      trainingData: { source: "https://blobs.example.test/train" },
    });

    const running = await rest.doGetStatus(started.ref, createTestContext());
    expect(running).toMatchObject({
      status: "working",
      rawStatus: "Running",
      message: "Running (40%)",
      pollIntervalMs: 4_000,
      updatedAt: "2026-11-20T10:15:09.000Z",
    });
    const done = await rest.doGetStatus(started.ref, createTestContext());
    expect(done).toMatchObject({
      status: "completed",
      rawStatus: "Succeeded",
      result: { structuredContent: { modelId: "invoice-extractor-7", documentsProcessed: 12 } },
    });
  });

  it("maps Failed to completed with isError and the error message, Canceled to cancelled, NotStarted to working", async () => {
    const ref = { id: operationPath, createdAt: Date.now() };
    service.intercept({ path: operationPath, method: "GET" }).reply(200, fixture("azure-operation-failed"));
    service.intercept({ path: operationPath, method: "GET" }).reply(200, fixture("azure-operation-canceled"));
    service.intercept({ path: operationPath, method: "GET" }).reply(200, { status: "NotStarted" });
    const rest = adapter();
    const failed = await rest.doGetStatus(ref, createTestContext());
    expect(failed).toMatchObject({ status: "completed", result: { isError: true } });
    expect((failed.result?.content[0] as { text: string }).text).toContain(
      "Training data must contain at least 5 labeled documents.",
    );
    await expect(rest.doGetStatus(ref, createTestContext())).resolves.toMatchObject({
      status: "cancelled",
      rawStatus: "Canceled",
    });
    await expect(rest.doGetStatus(ref, createTestContext())).resolves.toMatchObject({
      status: "working",
      rawStatus: "NotStarted",
    });
  });

  it("falls back to Azure-AsyncOperation, then Location", async () => {
    service
      .intercept({ path: "/formrecognizer/models:train?api-version=2026-10-01", method: "POST" })
      .reply(201, {}, { headers: { location: "/formrecognizer/operations/x1" } });
    const started = await adapter().tools[0]!.doStart({ modelId: "m", source: "s" }, createTestContext());
    expect(started.ref.id).toBe("/formrecognizer/operations/x1");
  });

  it("refuses an Operation-Location on another origin unless allowedOrigins lists it", async () => {
    const foreign = "https://westus.status.example.test/operations/9?api-version=2026-10-01";
    service
      .intercept({ path: "/formrecognizer/models:train?api-version=2026-10-01", method: "POST" })
      .reply(202, "", { headers: { "operation-location": foreign } })
      .times(2);
    const refused = await adapter()
      .tools[0]!.doStart({ modelId: "m", source: "s" }, createTestContext())
      .catch((error: unknown) => error);
    expect((refused as Error).message).toMatch(/an origin that is neither baseUrl's nor in allowedOrigins/);
    expect((refused as Error).message).not.toContain("westus.status.example.test");

    const allowed = adapter({ allowedOrigins: ["https://westus.status.example.test"] });
    const started = await allowed.tools[0]!.doStart({ modelId: "m", source: "s" }, createTestContext());
    expect(started.ref.id).toBe(foreign);
    let statusRequest: SeenRequest | undefined;
    agent
      .get("https://westus.status.example.test")
      .intercept({ path: "/operations/9?api-version=2026-10-01", method: "GET" })
      .reply((options) => {
        statusRequest = seen(options);
        return { statusCode: 200, data: fixture("azure-operation-running") };
      });
    await expect(allowed.doGetStatus(started.ref, createTestContext())).resolves.toMatchObject({ status: "working" });
    // An allowed origin is trusted with the credentials, as baseUrl is.
    expect(statusRequest?.headers["ocp-apim-subscription-key"]).toBe(apiKey);
  });
});
