import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidToolInputError, JobNotFoundError, UpstreamError, withSecretRedaction } from "@jobtasks/core";
import { createTestContext, findSecretLeaks } from "@jobtasks/testkit";
import { startDemoApi, type RunningDemoApi } from "../demo-api/demo-api-server.js";
import { demoAdapter } from "./demo-adapter.js";
import type { DemoJobRef } from "./demo-job-ref.js";
import type { DemoPipelineInput } from "./demo-pipeline-tool.js";
import { pollSnapshot, pollStatus } from "../test-support/poll-snapshot.js";
import { call } from "../test-support/demo-api-client-for-tests.js";

let api: RunningDemoApi;
beforeAll(async () => {
  api = await startDemoApi({ port: 0, queueDelayMs: 10, cancelDelayMs: 20 });
});
afterAll(async () => {
  await api.close();
});

function setUp() {
  const adapter = demoAdapter({ baseUrl: api.url });
  const tool = adapter.tools[0]!;
  const start = async (input: Partial<DemoPipelineInput>) => {
    const started = await tool.doStart(tool.inputSchema.parse(input), createTestContext());
    return started;
  };
  return { adapter, tool, start };
}

describe("demo adapter: the tool", () => {
  it("fills in defaults and refuses unknown or out-of-range arguments", () => {
    const { tool } = setUp();
    expect(tool.name).toBe("demo_pipeline");
    expect(tool.inputSchema.parse({})).toEqual({ steps: 3, stepMs: 1000, approval: false, fail: false });
    expect(tool.inputSchema.safeParse({ step: 2 }).success).toBe(false);
    expect(tool.inputSchema.safeParse({ steps: 51 }).success).toBe(false);
    expect(tool.inputSchema.safeParse({ stepMs: 1.5 }).success).toBe(false);
  });

  it("starts a job and returns its id as the reference, with a first snapshot", async () => {
    const { start } = setUp();
    const started = await start({ steps: 2, stepMs: 600_000 });
    expect(started.ref.jobId).toMatch(/^job_/);
    expect(Object.keys(started.ref)).toEqual(["jobId"]);
    expect(started.snapshot).toMatchObject({ status: "working", rawStatus: "queued", message: "queued" });
    const record = await call(api.url, "GET", `/jobs/${started.ref.jobId}`);
    expect(record.body).toMatchObject({ totalSteps: 2, status: expect.stringMatching(/queued|running/) });
  });

  it("turns an API refusal of the arguments into InvalidToolInputError naming the field", async () => {
    const { tool } = setUp();
    const refused = tool.doStart({ steps: 0, stepMs: 0, approval: false, fail: false }, createTestContext());
    await expect(refused).rejects.toBeInstanceOf(InvalidToolInputError);
    await expect(refused).rejects.toMatchObject({ field: "steps" });
  });
});

describe("demo adapter: a job's life", () => {
  it("reports progress, then a summary when the pipeline succeeds", async () => {
    const { adapter, start } = setUp();
    // Progress is read from a job whose first step never ends, so a slow poll cannot miss the running phase.
    const slow = await start({ steps: 3, stepMs: 600_000 });
    const running = await pollSnapshot(adapter, slow.ref, (snapshot) => snapshot.rawStatus === "running");
    expect(running).toMatchObject({ status: "working", message: "step 1/3: checkout" });
    await adapter.doCancel?.(slow.ref, createTestContext());
    // The summary comes from a short job run to its end.
    const { ref } = await start({ steps: 3, stepMs: 10 });
    const done = await pollStatus(adapter, ref, "completed");
    expect(done.result?.isError).toBe(false);
    expect(done.result?.structuredContent).toMatchObject({
      status: "succeeded",
      steps: [{ name: "checkout" }, { name: "install" }, { name: "test" }],
    });
  });

  it("reports a failed pipeline as completed with isError and the failing test in the text", async () => {
    const { adapter, start } = setUp();
    const { ref } = await start({ steps: 3, stepMs: 0, fail: true });
    const done = await pollStatus(adapter, ref, "completed");
    expect(done.result?.isError).toBe(true);
    expect(JSON.stringify(done.result?.content)).toContain("AssertionError: expected 90 to be 85");
    // A finished task never changes.
    expect(await adapter.doGetStatus(ref, createTestContext())).toEqual(done);
  });

  it("asks for the approval with a key that stays the same, then continues once approved", async () => {
    const { adapter, start } = setUp();
    const { ref } = await start({ steps: 2, stepMs: 0, approval: true });
    const waiting = await pollStatus(adapter, ref, "input_required");
    const again = await adapter.doGetStatus(ref, createTestContext());
    const keys = Object.keys(waiting.inputRequests ?? {});
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^appr_/);
    expect(Object.keys(again.inputRequests ?? {})).toEqual(keys);
    expect(waiting.message).toBe("Approve the deploy of pipeline demo-pipeline? (step 1/2 done)");

    await adapter.doRespond?.(
      ref,
      { [keys[0]!]: { action: "accept", content: { approve: true, comment: "go" } } },
      createTestContext(),
    );
    const done = await pollStatus(adapter, ref, "completed");
    expect(done.result?.isError).toBe(false);
    const record = await call(api.url, "GET", `/jobs/${ref.jobId}`);
    expect(record.body.approval).toMatchObject({ state: "approved", comment: "go" });
  });

  it("rejects the deploy when the form is declined, and ends with isError", async () => {
    const { adapter, start } = setUp();
    const { ref } = await start({ steps: 2, stepMs: 0, approval: true });
    const waiting = await pollStatus(adapter, ref, "input_required");
    const key = Object.keys(waiting.inputRequests ?? {})[0]!;
    await adapter.doRespond?.(ref, { [key]: { action: "decline" } }, createTestContext());
    const done = await adapter.doGetStatus(ref, createTestContext());
    expect(done).toMatchObject({ status: "completed", rawStatus: "rejected", result: { isError: true } });
    expect(JSON.stringify(done.result?.content)).toContain(
      "The deploy approval was rejected: The approval request was declined in the client",
    );
  });

  it("ignores an answer to an approval that was already answered or is not pending (409)", async () => {
    const { adapter, start } = setUp();
    const { ref } = await start({ steps: 2, stepMs: 0, approval: true });
    const waiting = await pollStatus(adapter, ref, "input_required");
    const key = Object.keys(waiting.inputRequests ?? {})[0]!;
    const accept = { [key]: { action: "accept" as const, content: { approve: true } } };
    await adapter.doRespond?.(ref, accept, createTestContext());
    await expect(adapter.doRespond?.(ref, accept, createTestContext())).resolves.toBeUndefined();
    await expect(
      adapter.doRespond?.(ref, { appr_unknown: { action: "decline" } }, createTestContext()),
    ).resolves.toBeUndefined();
    const record = await call(api.url, "GET", `/jobs/${ref.jobId}`);
    expect(record.body.approval).toMatchObject({ id: key, state: "approved" });
  });

  it("cancels a running job: still working at first, cancelled once the API shows it", async () => {
    const { adapter, start } = setUp();
    const { ref } = await start({ steps: 3, stepMs: 600_000 });
    await adapter.doCancel?.(ref, createTestContext());
    const cancelled = await pollStatus(adapter, ref, "cancelled");
    expect(cancelled).toMatchObject({ status: "cancelled", rawStatus: "cancelled" });
    // The job is over: another cancel meets a 409, which is not a failure.
    await expect(adapter.doCancel?.(ref, createTestContext())).resolves.toBeUndefined();
  });
});

describe("demo adapter: errors", () => {
  it("raises JobNotFoundError for an unknown job, and for a reference that holds no job id", async () => {
    const { adapter } = setUp();
    await expect(adapter.doGetStatus({ jobId: "job_doesNotExist" }, createTestContext())).rejects.toBeInstanceOf(
      JobNotFoundError,
    );
    await expect(
      adapter.doGetStatus({ jobId: "../healthz" } as DemoJobRef, createTestContext()),
    ).rejects.toBeInstanceOf(JobNotFoundError);
  });

  it("raises a retryable UpstreamError with the Retry-After on 503 and 429", async () => {
    const { adapter } = setUp();
    await call(api.url, "POST", "/_faults", { status: 503, count: 1 });
    const outage = await adapter
      .doGetStatus({ jobId: "job_any" }, createTestContext())
      .catch((error: unknown) => error);
    expect(outage).toBeInstanceOf(UpstreamError);
    expect(outage).toMatchObject({ httpStatus: 503, isRetryable: true, retryAfterMs: 1000 });

    await call(api.url, "POST", "/_faults", { status: 429, count: 1, retryAfterSeconds: 7 });
    const throttled = await adapter
      .doGetStatus({ jobId: "job_any" }, createTestContext())
      .catch((error: unknown) => error);
    expect(throttled).toMatchObject({ httpStatus: 429, isRetryable: true, retryAfterMs: 7000 });
  });

  it("raises a non-retryable UpstreamError on other client errors", async () => {
    const { adapter } = setUp();
    await call(api.url, "POST", "/_faults", { status: 403, count: 1 });
    const refused = await adapter
      .doGetStatus({ jobId: "job_any" }, createTestContext())
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UpstreamError);
    expect(refused).toMatchObject({ httpStatus: 403, isRetryable: false });
    expect((refused as Error).message).toBe(
      "The demo API answered 403 to GET /jobs/job_any: fault injected by POST /_faults",
    );
  });

  it("raises a retryable UpstreamError when the API cannot be reached, without the URL's credentials", async () => {
    const closed = await startDemoApi({ port: 0 });
    await closed.close();
    // As the server calls it: the URL's password is declared, and the message never had it in the first place.
    const adapter = withSecretRedaction(
      demoAdapter({ baseUrl: `http://robot:pa55word-demo@127.0.0.1:${closed.port}` }),
    );
    const error = await adapter
      .doGetStatus({ jobId: "job_any" }, createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ isRetryable: true });
    expect((error as Error).message).toBe(
      `Could not reach the demo API at http://127.0.0.1:${closed.port} (GET /jobs/job_any)`,
    );
    expect(findSecretLeaks(error, ["pa55word-demo"], "error")).toEqual([]);
  });

  it("raises a retryable UpstreamError when the answer is not a job record", async () => {
    const adapter = demoAdapter({
      baseUrl: "http://demo.invalid",
      fetch: async () =>
        new Response("<html>Bad gateway</html>", { status: 200, headers: { "content-type": "text/html" } }),
    });
    const error = await adapter
      .doGetStatus({ jobId: "job_any" }, createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ isRetryable: true });
  });

  it("passes the context's signal to the transport, and lets an abort through as it is", async () => {
    const { adapter } = setUp();
    const controller = new AbortController();
    controller.abort();
    const error = await adapter
      .doGetStatus({ jobId: "job_any" }, createTestContext({ signal: controller.signal }))
      .catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(UpstreamError);
    expect((error as Error).name).toBe("AbortError");
  });

  it("sends URL credentials as Basic authentication, never in the URL", async () => {
    const seen: Array<{ url: string; authorization: string | null }> = [];
    const adapter = demoAdapter({
      baseUrl: `http://robot:pa55%2Fword@127.0.0.1:${api.port}/`,
      fetch: async (input, init) => {
        seen.push({ url: String(input), authorization: new Headers(init?.headers).get("authorization") });
        return fetch(input, init);
      },
    });
    await expect(adapter.doGetStatus({ jobId: "job_missing" }, createTestContext())).rejects.toBeInstanceOf(
      JobNotFoundError,
    );
    expect(seen).toEqual([
      {
        url: `http://127.0.0.1:${api.port}/jobs/job_missing`,
        authorization: `Basic ${Buffer.from("robot:pa55/word").toString("base64")}`,
      },
    ]);
  });
});
