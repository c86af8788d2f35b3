import {
  JobNotFoundError,
  isTerminalStatus,
  type AnyJobAdapter,
  type JobAdapterV1,
  type JobSnapshot,
  type JsonValue,
  z,
} from "@jobtasks/core";
import { startDemoApi, type RunningDemoApi } from "@jobtasks/demo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restAdapter, type RestJobRef } from "@jobtasks/rest";
import { createTestContext } from "@jobtasks/testkit";

/** Read a job's status until `done` says so, as a client polling tasks/get would; fails after `timeoutMs`. */
async function pollUntil(
  adapter: AnyJobAdapter,
  reference: JsonValue,
  done: (snapshot: JobSnapshot) => boolean,
  // Generous for a loaded CI machine; still well inside vitest's 20 s test timeout.
  timeoutMs = 15_000,
): Promise<{ last: JobSnapshot; seen: JobSnapshot[] }> {
  const seen: JobSnapshot[] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const snapshot = await adapter.doGetStatus(reference, createTestContext());
    seen.push(snapshot);
    if (done(snapshot)) return { last: snapshot, seen };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`gave up after ${timeoutMs} ms; last status: ${JSON.stringify(seen.at(-1))}`);
}

// The REAL demo job API on 127.0.0.1, driven through the `demo-api` preset: the same behaviour as the
// hand-written demo adapter, with nothing but configuration.
let api: RunningDemoApi;
let adapter: JobAdapterV1<RestJobRef>;

beforeAll(async () => {
  api = await startDemoApi({ port: 0, queueDelayMs: 10, cancelDelayMs: 30 });
  adapter = restAdapter({ preset: "demo-api", baseUrl: api.url });
});
afterAll(async () => api?.close());

const terminal = (snapshot: JobSnapshot) => isTerminalStatus(snapshot.status);

async function start(input: Record<string, unknown>): Promise<RestJobRef> {
  const tool = adapter.tools.find((candidate) => candidate.name === "demo_pipeline");
  if (!tool) throw new Error("the preset has no demo_pipeline tool");
  const started = await tool.doStart(tool.inputSchema.parse(input), createTestContext());
  return started.ref;
}

describe("demo-api preset against the real demo API", () => {
  it("offers demo_pipeline with the demo adapter's arguments and defaults", () => {
    const tool = adapter.tools[0]!;
    expect(tool.name).toBe("demo_pipeline");
    expect(tool.inputSchema.parse({})).toEqual({ steps: 3, stepMs: 1000, approval: false, fail: false });
    expect(tool.inputSchema.safeParse({ steps: 51 }).success).toBe(false);
    expect(tool.inputSchema.safeParse({ steps: 2, colour: "red" }).success).toBe(false);
    const published = z.toJSONSchema(tool.inputSchema) as { properties: Record<string, { type: string }> };
    expect(Object.keys(published.properties)).toEqual(["steps", "stepMs", "approval", "fail"]);
    expect(adapter.doRespond).toBeTypeOf("function");
    expect(adapter.doCancel).toBeTypeOf("function");
  });

  it("starts with a first snapshot and reports step progress until it succeeds with content and structured content", async () => {
    const tool = adapter.tools[0]!;
    // Each step lasts 400 ms, so a poll slowed down by a loaded machine still lands inside one of them.
    const started = await tool.doStart(tool.inputSchema.parse({ steps: 3, stepMs: 400 }), createTestContext());
    expect(started.snapshot).toMatchObject({ status: "working", rawStatus: "queued", message: "queued" });
    const { last, seen } = await pollUntil(adapter, started.ref, terminal);
    expect(seen.map((snapshot) => snapshot.message)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^step [123]\/3: (checkout|install|test)$/)]),
    );
    expect(last.status).toBe("completed");
    expect(last.result?.isError).toBeUndefined();
    expect(last.result?.content[0]).toMatchObject({
      type: "text",
      text: expect.stringMatching(/^Pipeline demo-pipeline succeeded after \d+ ms \(step 3\/3\)\.$/),
    });
    // The hand-written demo adapter's output shape, which the preset's outputSchema describes.
    expect(last.result?.structuredContent).toMatchObject({
      status: "succeeded",
      name: "demo-pipeline",
      durationMs: expect.any(Number),
    });
    expect(last.result?.structuredContent?.["steps"]).toHaveLength(3);
    expect(adapter.tools[0]!.outputSchema?.safeParse(last.result?.structuredContent).success).toBe(true);
  });

  it("asks for approval after the first step, and approving lets the pipeline finish", async () => {
    const reference = await start({ steps: 2, stepMs: 30, approval: true });
    const { last: waiting } = await pollUntil(adapter, reference, (snapshot) => snapshot.status === "input_required");
    const keys = Object.keys(waiting.inputRequests ?? {});
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^appr_/);
    const request = waiting.inputRequests![keys[0]!]!;
    expect(request.method).toBe("elicitation/create");
    expect(request.params.requestedSchema.properties["approve"]).toMatchObject({ type: "boolean" });
    expect(request.params.requestedSchema.properties["comment"]).toMatchObject({ type: "string" });
    expect(request.params.requestedSchema.required).toEqual(["approve"]);
    expect(waiting.message).toMatch(/production\? \(step 1\/2 done\)$/);

    await adapter.doRespond!(
      reference,
      { [keys[0]!]: { action: "accept", content: { approve: true, comment: "ship it" } } },
      createTestContext(),
    );
    const { last } = await pollUntil(adapter, reference, terminal);
    expect(last).toMatchObject({ status: "completed", rawStatus: "succeeded" });
    // Answering again: the key is no longer outstanding, so nothing is sent and nothing fails.
    await adapter.doRespond!(
      reference,
      { [keys[0]!]: { action: "accept", content: { approve: true } } },
      createTestContext(),
    );
  });

  it.each([
    ["rejecting", { action: "accept" as const, content: { approve: false, comment: "not today" } }],
    ["declining", { action: "decline" as const }],
  ])("ends completed with isError after %s the approval", async (_label, answer) => {
    const reference = await start({ steps: 2, stepMs: 30, approval: true });
    const { last: waiting } = await pollUntil(adapter, reference, (snapshot) => snapshot.status === "input_required");
    const key = Object.keys(waiting.inputRequests ?? {})[0]!;
    await adapter.doRespond!(reference, { [key]: answer }, createTestContext());
    const { last } = await pollUntil(adapter, reference, terminal);
    expect(last).toMatchObject({ status: "completed", rawStatus: "rejected", result: { isError: true } });
    expect((last.result?.content[0] as { text: string }).text).toMatch(/rejected/);
    if (answer.action === "accept") {
      expect(last.result?.structuredContent).toMatchObject({ status: "rejected", approvalComment: "not today" });
      expect((last.result?.content[0] as { text: string }).text).toContain("not today");
    }
  });

  it("ends a failing pipeline completed with isError and a log excerpt", async () => {
    const reference = await start({ steps: 3, stepMs: 20, fail: true });
    const { last } = await pollUntil(adapter, reference, terminal);
    expect(last).toMatchObject({ status: "completed", rawStatus: "failed", result: { isError: true } });
    const text = (last.result?.content[0] as { text: string }).text;
    expect(text).toMatch(/^Pipeline demo-pipeline failed after \d+ ms \(step 3\/3\)\./);
    expect(text).toMatch(/Last \d+ log lines:/);
    expect(text).toMatch(/Job failed after/);
    expect(last.result?.structuredContent).toMatchObject({
      status: "failed",
      failedStep: "test",
      logExcerpt: expect.arrayContaining([expect.stringMatching(/Job failed after/)]),
    });
    expect((last.result?.structuredContent?.["logExcerpt"] as string[]).length).toBeLessThanOrEqual(20);
  });

  it("cancels the upstream job; the task ends cancelled", async () => {
    const reference = await start({ steps: 5, stepMs: 2_000 });
    await adapter.doCancel!(reference, createTestContext());
    const { last } = await pollUntil(adapter, reference, terminal);
    expect(last).toMatchObject({ status: "cancelled", rawStatus: "cancelled" });
    // Cancelling a finished job is answered 409 by the API and is not an error.
    await expect(adapter.doCancel!(reference, createTestContext())).resolves.toBeUndefined();
  });

  it("suggests polling every second however long the pipeline has run, so the demo shows each step as it happens", async () => {
    const tool = adapter.tools[0]!;
    const started = await tool.doStart(tool.inputSchema.parse({ steps: 2, stepMs: 60_000 }), createTestContext());
    expect(started.snapshot?.pollIntervalMs).toBe(1_000);
    expect(adapter.pollIntervalMs).toBe(1_000);
    // The same job read as if started 10 s and 10 min ago: a back-off would have grown the interval by now.
    for (const ageMs of [10_000, 600_000]) {
      const snapshot = await adapter.doGetStatus(
        { ...started.ref, createdAt: started.ref.createdAt - ageMs },
        createTestContext(),
      );
      expect(snapshot, `at ${ageMs} ms`).toMatchObject({ status: "working", pollIntervalMs: 1_000 });
    }
    await adapter.doCancel!(started.ref, createTestContext());
  });

  it("turns injected 503s into retryable errors carrying Retry-After", async () => {
    const reference = await start({ steps: 1, stepMs: 10 });
    await fetch(`${api.url}/_faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ status: 503, count: 1 }),
    });
    await expect(adapter.doGetStatus(reference, createTestContext())).rejects.toMatchObject({
      name: "UpstreamError",
      isRetryable: true,
      retryAfterMs: 1_000,
    });
    await expect(pollUntil(adapter, reference, terminal)).resolves.toMatchObject({ last: { status: "completed" } });
  });

  it("reports a job the API does not know as not found, once past the 404 grace window", async () => {
    const longAgo = Date.now() - 3_600_000;
    await expect(
      adapter.doGetStatus({ id: "job_doesnotexist", createdAt: longAgo }, createTestContext()),
    ).rejects.toBeInstanceOf(JobNotFoundError);
  });
});
