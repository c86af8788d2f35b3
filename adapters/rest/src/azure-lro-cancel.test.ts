import { AdapterConfigError, JobNotFoundError, UpstreamError } from "@jobtasks/core";
import { afterEach, describe, expect, it } from "vitest";
import { restAdapter } from "./rest-adapter.js";
import { fixture } from "./test-support/fixtures.js";
import { createTestContext } from "@jobtasks/testkit";
import { mockAgent, seen, type SeenRequest } from "./test-support/mock-agent.js";

// Azure's guideline for controlling a long-running operation: POST {status-monitor-url}:cancel, answered
// 200 with the status monitor (some services answer 202); the monitor then says Canceled.
const origin = "https://contoso.cognitive.example.test";
const agent = mockAgent();
const service = agent.get(origin);
afterEach(() => agent.assertNoPendingInterceptors());

const apiKey = "azure-key-5f0c9d3e7a";
const operationId = "3b5c8e2a-7f41-4d0b-9a6c-1e2f3a4b5c6d";
const operationPath = `/language/analyze-text/jobs/${operationId}?api-version=2026-10-01`;
const cancelPath = `/language/analyze-text/jobs/${operationId}:cancel?api-version=2026-10-01`;
const ref = { id: operationPath, createdAt: Date.now() };

function adapter(overrides = {}) {
  return restAdapter(
    {
      preset: "azure-lro",
      baseUrl: `${origin}/language`,
      auth: { type: "header", name: "Ocp-Apim-Subscription-Key", valueEnv: "AZURE_KEY" },
      tools: [
        {
          name: "analyze",
          description: "Analyze documents.",
          submit: { url: "/analyze-text/jobs", query: { "api-version": "2026-10-01" } },
        },
      ],
      ...overrides,
    },
    { dispatcher: agent, environment: { AZURE_KEY: apiKey } },
  );
}

describe("azure-lro preset: cancel", () => {
  it("cancels with POST on the Operation-Location URL plus :cancel, keeping its api-version; the task ends cancelled once the monitor says so", async () => {
    let cancel: SeenRequest | undefined;
    service.intercept({ path: "/language/analyze-text/jobs?api-version=2026-10-01", method: "POST" }).reply(202, "", {
      headers: { "operation-location": `${origin}${operationPath}` },
    });
    service.intercept({ path: cancelPath, method: "POST" }).reply((options) => {
      cancel = seen(options);
      return { statusCode: 202, data: "" };
    });
    service.intercept({ path: operationPath, method: "GET" }).reply(200, fixture("azure-operation-running"));
    service.intercept({ path: operationPath, method: "GET" }).reply(200, fixture("azure-operation-canceled"));

    const rest = adapter();
    expect(rest.doCancel).toBeDefined();
    const started = await rest.tools[0]!.doStart({}, createTestContext());
    expect(started.ref.id).toBe(operationPath);
    await rest.doCancel!(started.ref, createTestContext());
    expect(cancel?.headers["ocp-apim-subscription-key"]).toBe(apiKey);
    await expect(rest.doGetStatus(started.ref, createTestContext())).resolves.toMatchObject({
      status: "working",
      rawStatus: "Running",
    });
    await expect(rest.doGetStatus(started.ref, createTestContext())).resolves.toMatchObject({
      status: "cancelled",
      rawStatus: "Canceled",
    });
  });

  it("says the upstream offers no cancel when :cancel answers 404 while the operation is still known", async () => {
    service
      .intercept({ path: cancelPath, method: "POST" })
      .reply(404, { error: { code: "NotFound", message: "Resource not found" } });
    service.intercept({ path: operationPath, method: "GET" }).reply(200, fixture("azure-operation-running"));
    const failure = await adapter().doCancel!(ref, createTestContext()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).not.toBeInstanceOf(JobNotFoundError);
    expect((failure as UpstreamError).isRetryable).toBe(false);
    expect((failure as Error).message).toMatch(
      /does not offer cancelling this job \(the cancel request answered HTTP 404\)/,
    );
  });

  it("raises JobNotFoundError when the cancel and the status both answer 404", async () => {
    service.intercept({ path: cancelPath, method: "POST" }).reply(404, "");
    service.intercept({ path: operationPath, method: "GET" }).reply(404, "");
    await expect(adapter().doCancel!({ id: operationPath, createdAt: 0 }, createTestContext())).rejects.toBeInstanceOf(
      JobNotFoundError,
    );
  });

  it("builds a cancel request from the status body when its templates read it (DELETE on the job by its id)", async () => {
    let deleted: SeenRequest | undefined;
    service.intercept({ path: operationPath, method: "GET" }).reply(200, fixture("azure-operation-running"));
    service
      .intercept({ path: `/language/jobs/${operationId}?api-version=2026-10-01`, method: "DELETE" })
      .reply((options) => {
        deleted = seen(options);
        return { statusCode: 204, data: "" };
      });
    const rest = adapter({
      cancel: { method: "DELETE", url: "/jobs/{{body.id}}", query: { "api-version": "2026-10-01" } },
    });
    await rest.doCancel!(ref, createTestContext());
    expect(deleted?.method).toBe("DELETE");
  });

  it("refuses {{*job.id}} over a URL reference at start-up, and names the template that works", () => {
    expect(() => adapter({ cancel: { url: "{{*job.id}}:cancel" } })).toThrow(AdapterConfigError);
    expect(() => adapter({ cancel: { url: "{{*job.id}}:cancel" } })).toThrow(
      /cancel\.url: .*the job reference is a URL.*"\{\{job\.id\}\}:cancel"/,
    );
  });
});
