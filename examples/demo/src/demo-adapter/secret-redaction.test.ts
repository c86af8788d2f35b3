import { describe, expect, it } from "vitest";
import { InvalidToolInputError, UpstreamError, withSecretRedaction } from "@jobtasks/core";
import { createTestContext, findSecretLeaks } from "@jobtasks/testkit";
import type { DemoJobRecord } from "../demo-api/demo-job-record.js";
import { loadJobFixture } from "../test-support/load-fixture.js";
import { demoAdapter } from "./demo-adapter.js";

/**
 * The demo redacts nothing itself: it declares the password of its URL (and the Basic header made of it)
 * as `secrets`, and the core's wrapper, which the server calls every adapter through, removes them. These
 * tests see the adapter as the server does; they fail when the demo stops declaring its credentials.
 */

const password = "demo-Pa55word-for-redaction-4e1b";
const basic = Buffer.from(`robot:${password}`).toString("base64");
const secrets = [password, basic];

/** The adapter, wrapped as the server wraps it, over a fake API that answers `answer` to every request. */
function serverView(answer: (method: string, path: string) => Response) {
  return withSecretRedaction(
    demoAdapter({
      baseUrl: `http://robot:${encodeURIComponent(password)}@demo.invalid`,
      fetch: async (input, init) => answer(init?.method ?? "GET", new URL(String(input)).pathname),
    }),
  );
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

function record(fixture: string, change: (job: DemoJobRecord) => void): DemoJobRecord {
  const job = loadJobFixture(fixture);
  change(job);
  return job;
}

describe("the demo adapter's credentials, as the server sees the adapter", () => {
  it("are declared: the URL's password and the Basic credential sent with every request", () => {
    const adapter = demoAdapter({ baseUrl: `http://robot:${password}@127.0.0.1:1` });
    expect(adapter.secrets).toEqual(expect.arrayContaining(secrets));
  });

  it("do not leave in an upstream error body, the class and retry advice kept", async () => {
    const adapter = serverView(() =>
      json(403, { message: `token ${password} may not read this job (Authorization: Basic ${basic})` }),
    );
    const error = await adapter
      .doGetStatus({ jobId: "job_any" }, createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ httpStatus: 403, isRetryable: false });
    expect((error as Error).message).toBe(
      "The demo API answered 403 to GET /jobs/job_any: token [redacted] may not read this job (Authorization: Basic [redacted])",
    );
    expect(findSecretLeaks(error, secrets, "error")).toEqual([]);
  });

  it("do not leave in the API's refusal of a start, still -32602 naming the field", async () => {
    const adapter = serverView(() => json(400, { message: `steps: not allowed for ${password}` }));
    const tool = adapter.tools[0]!;
    const error = await tool
      .doStart(tool.inputSchema.parse({}), createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidToolInputError);
    expect(error).toMatchObject({ field: "steps" });
    expect(findSecretLeaks(error, secrets, "error")).toEqual([]);
  });

  it("do not leave in a failed pipeline's log lines, whole or cut at the excerpt's line length", async () => {
    const failed = record("job-failed", (job) => {
      job.logs.push(`curl -u robot:${password} https://registry.example`);
      // The excerpt cuts a line at 300 characters: here inside the password.
      job.logs.push(`${"x".repeat(290)} ${password}`);
    });
    const context = createTestContext();
    const snapshot = await serverView(() => json(200, failed)).doGetStatus({ jobId: failed.id }, context);
    expect(snapshot).toMatchObject({ status: "completed", result: { isError: true } });
    expect(JSON.stringify(snapshot.result)).toContain("curl -u robot:[redacted] https://registry.example");
    expect(findSecretLeaks(snapshot, secrets, "snapshot")).toEqual([]);
    expect(JSON.stringify(snapshot)).not.toContain(password.slice(0, 9));
  });

  it("do not leave in a rejected approval's comment, in the message or the result", async () => {
    const rejected = record("job-rejected", (job) => {
      job.approval!.comment = `rotate ${password} first`;
    });
    const snapshot = await serverView(() => json(200, rejected)).doGetStatus(
      { jobId: rejected.id },
      createTestContext(),
    );
    expect(snapshot.message).toBe("the deploy approval was rejected: rotate [redacted] first");
    expect(snapshot.result?.structuredContent).toMatchObject({ approvalComment: "rotate [redacted] first" });
    expect(findSecretLeaks(snapshot, secrets, "snapshot")).toEqual([]);
  });

  it("do not leave in a start's first snapshot", async () => {
    const queued = record("job-queued", (job) => {
      job.logs.push(`pulling with ${password}`);
    });
    const adapter = serverView(() => json(201, { ...queued, status: "failed", steps: [] }));
    const tool = adapter.tools[0]!;
    const started = await tool.doStart(tool.inputSchema.parse({}), createTestContext());
    expect(started.ref).toEqual({ jobId: queued.id });
    expect(findSecretLeaks(started.snapshot, secrets, "first snapshot")).toEqual([]);
    expect(JSON.stringify(started.snapshot)).toContain("pulling with [redacted]");
  });
});
