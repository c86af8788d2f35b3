import type { AdapterContext } from "@jobtasks/core";
import { afterEach, describe, expect, it } from "vitest";
import { restAdapter } from "./rest-adapter.js";
import type { RestOptions } from "./rest-options.js";
import { createTestContext } from "@jobtasks/testkit";
import { mockAgent } from "./test-support/mock-agent.js";

// Every error the adapter throws becomes a statusMessage, a tool error or a tasks/cancel error that the
// client reads. It says what failed in the adapter's words (the status request, the submit, the cancel),
// never where: no upstream host, port or path. The request's URL goes to the debug log only.
const host = "jobs-internal.corp.example.test";
const port = "8443";
const basePath = "/private-api";
const origin = `https://${host}:${port}`;
const agent = mockAgent();
const upstream = agent.get(origin);
afterEach(() => agent.assertNoPendingInterceptors());

const options: RestOptions = {
  baseUrl: `${origin}${basePath}`,
  timeoutMs: 200,
  maxResponseBytes: 1_000,
  tools: [{ name: "run", description: "Run a job.", submit: { url: "/jobs" } }],
  reference: { header: ["Operation-Location"] },
  status: { field: "state", working: ["running"], inputRequired: ["waiting"], completed: ["done"], goneGraceMs: 0 },
  result: { url: "{{job.id}}/output" },
  inputRequired: {
    keyPath: "question.id",
    schema: { type: "object", properties: { ok: { type: "boolean" } } },
    respond: { url: "{{job.id}}/answers", body: { ok: "{{answer.ok}}" }, declineBody: { ok: false } },
  },
  cancel: { url: "{{job.id}}/cancel" },
};
const jobPath = `${basePath}/ops/17`;
const ref = { id: jobPath, createdAt: 0 };

function connectionRefused(): Error {
  return Object.assign(new Error(`connect ECONNREFUSED 10.1.2.3:${port}`), { code: "ECONNREFUSED" });
}

function connectionReset(): Error {
  return Object.assign(new Error(`read ECONNRESET ${host}:${port}`), { code: "ECONNRESET" });
}

async function failureOf(
  action: (context: AdapterContext) => Promise<unknown>,
): Promise<{ message: string; logs: string }> {
  const context = createTestContext();
  const failure = await action(context).then(
    () => new Error("expected a failure"),
    (error: unknown) => error,
  );
  return { message: (failure as Error).message, logs: JSON.stringify(context.logEntries) };
}

function expectNoInternals(message: string): void {
  expect(message).not.toContain(host);
  expect(message).not.toContain(port);
  expect(message).not.toContain(basePath);
  expect(message).not.toContain("/ops/17");
  expect(message).not.toMatch(/https?:\/\//);
}

const adapter = () => restAdapter(options, { dispatcher: agent });

describe("rest adapter: no upstream internals in what reaches the client", () => {
  it("says the status request failed before an answer arrived, with the reason, and logs the URL at debug level", async () => {
    upstream.intercept({ path: jobPath, method: "GET" }).replyWithError(connectionRefused()).times(1);
    const { message, logs } = await failureOf((context) => adapter().doGetStatus(ref, context));
    expect(message).toBe("the status request failed before an answer arrived: connection refused");
    expect(logs).toContain(`${origin}${jobPath}`);
  });

  const statusFaults: [string, () => void, RegExp][] = [
    [
      "a timeout",
      () => void upstream.intercept({ path: jobPath, method: "GET" }).reply(200, { state: "running" }).delay(1_000),
      /the status request timed out after 200 ms/,
    ],
    [
      "a body that is not JSON",
      () => void upstream.intercept({ path: jobPath, method: "GET" }).reply(200, "<html>down</html>"),
      /status request .*not valid JSON/,
    ],
    [
      "a body over maxResponseBytes",
      () => void upstream.intercept({ path: jobPath, method: "GET" }).reply(200, { state: "x".repeat(2_000) }),
      /status request .*larger than maxResponseBytes/,
    ],
    [
      "JSON nested too deeply",
      () => void upstream.intercept({ path: jobPath, method: "GET" }).reply(200, "[".repeat(300) + "]".repeat(300)),
      /status request .*nested more than/,
    ],
    [
      "an HTTP 503",
      () => void upstream.intercept({ path: jobPath, method: "GET" }).reply(503, { message: "maintenance" }),
      /The status request answered HTTP 503: maintenance/,
    ],
    [
      "a redirect to a foreign origin",
      () =>
        void upstream
          .intercept({ path: jobPath, method: "GET" })
          .reply(302, "", { headers: { location: "http://169.254.169.254/latest" } }),
      /the status request was redirected to an origin that is not allowed/,
    ],
    [
      "a redirect to a non-HTTP URL",
      () =>
        void upstream
          .intercept({ path: jobPath, method: "GET" })
          .reply(302, "", { headers: { location: "file:///etc/passwd" } }),
      /the status request was redirected to a non-HTTP URL/,
    ],
    [
      "a connection reset",
      () => void upstream.intercept({ path: jobPath, method: "GET" }).replyWithError(connectionReset()),
      /the status request failed before an answer arrived: connection reset/,
    ],
  ];
  it.each(statusFaults)("status read: %s", async (_fault, arrange, expected) => {
    arrange();
    const { message } = await failureOf((context) => adapter().doGetStatus(ref, context));
    expect(message).toMatch(expected);
    expectNoInternals(message);
    expect(message).not.toContain("169.254.169.254");
  });

  it("the result request", async () => {
    upstream.intercept({ path: jobPath, method: "GET" }).reply(200, { state: "done" });
    upstream.intercept({ path: `${jobPath}/output`, method: "GET" }).replyWithError(connectionRefused());
    const { message } = await failureOf((context) => adapter().doGetStatus(ref, context));
    expect(message).toBe("the result request failed before an answer arrived: connection refused");
  });

  it("the status URL of a job that climbs out of baseUrl", async () => {
    const { message } = await failureOf((context) =>
      adapter().doGetStatus({ id: "../../admin/ops/17", createdAt: 0 }, context),
    );
    expect(message).toMatch(/Cannot build the status request/);
    expectNoInternals(message);
    expect(message).not.toContain("admin");
  });

  it("submit: a connection refused, a reset after sending, and a status URL on a foreign origin", async () => {
    upstream.intercept({ path: `${basePath}/jobs`, method: "POST" }).replyWithError(connectionRefused());
    upstream.intercept({ path: `${basePath}/jobs`, method: "POST" }).replyWithError(connectionReset());
    upstream
      .intercept({ path: `${basePath}/jobs`, method: "POST" })
      .reply(202, "", { headers: { "operation-location": "https://status.elsewhere.example.test:9443/ops/1" } });
    const messages: string[] = [];
    for (let attempt = 0; attempt < 3; attempt++)
      messages.push((await failureOf((context) => adapter().tools[0]!.doStart({}, context))).message);
    expect(messages[0]).toBe("the submit request failed before an answer arrived: connection refused");
    expect(messages[1]).toMatch(
      /^the submit request failed before an answer arrived: connection reset; a job may have been created upstream/,
    );
    expect(messages[2]).toMatch(
      /refusing the job's status URL: .*an origin that is neither baseUrl's nor in allowedOrigins/,
    );
    for (const message of messages) {
      expectNoInternals(message);
      expect(message).not.toContain("elsewhere");
      expect(message).not.toContain("9443");
    }
  });

  it("cancel and answers", async () => {
    upstream.intercept({ path: `${jobPath}/cancel`, method: "POST" }).replyWithError(connectionRefused());
    upstream.intercept({ path: jobPath, method: "GET" }).reply(200, { state: "waiting", question: { id: "q1" } });
    upstream.intercept({ path: `${jobPath}/answers`, method: "POST" }).replyWithError(connectionRefused());
    const cancel = await failureOf((context) => adapter().doCancel!(ref, context));
    const respond = await failureOf((context) =>
      adapter().doRespond!(ref, { q1: { action: "accept", content: { ok: true } } }, context),
    );
    expect(cancel.message).toBe("the cancel request failed before an answer arrived: connection refused");
    expect(respond.message).toBe("the respond request failed before an answer arrived: connection refused");
  });
});
