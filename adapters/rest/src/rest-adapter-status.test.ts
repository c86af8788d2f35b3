import { JobNotFoundError, UpstreamError, withSecretRedaction } from "@jobtasks/core";
import { afterEach, describe, expect, it } from "vitest";
import { restAdapter } from "./rest-adapter.js";
import { renderFarmConfig, renderFarmOrigin, renderFarmToken } from "./test-support/render-farm-config.js";
import { createTestContext } from "@jobtasks/testkit";
import { mockAgent } from "./test-support/mock-agent.js";

const agent = mockAgent();
const farm = agent.get(renderFarmOrigin);
afterEach(() => agent.assertNoPendingInterceptors());

const startedAt = 1_000_000;
let clock = startedAt;
const ref = { id: "r-42", createdAt: startedAt };
/** The adapter as the server calls it: through the core's redaction of its declared secrets. */
function adapter(overrides = {}) {
  return withSecretRedaction(
    restAdapter(renderFarmConfig(overrides), {
      dispatcher: agent,
      environment: { RENDER_TOKEN: renderFarmToken },
      now: () => clock,
    }),
  );
}
function replyStatus(statusCode: number, body: unknown, headers: Record<string, string> = {}) {
  farm.intercept({ path: "/api/renders/r-42", method: "GET" }).reply(statusCode, body as object, { headers });
}

describe("rest adapter: reading status", () => {
  it("reports progress from the message template and the upstream's update time", async () => {
    clock = startedAt;
    replyStatus(200, { state: "rendering", progress: { frame: 3, total: 24 }, updated: "2026-11-20T10:15:09Z" });
    await expect(adapter().doGetStatus(ref, createTestContext())).resolves.toEqual({
      status: "working",
      rawStatus: "rendering",
      message: "frame 3/24",
      updatedAt: "2026-11-20T10:15:09.000Z",
      pollIntervalMs: 1_000,
    });
  });

  it("falls back to the raw status when the message template cannot be filled", async () => {
    replyStatus(200, { state: "queued" });
    await expect(adapter().doGetStatus(ref, createTestContext())).resolves.toMatchObject({ message: "queued" });
  });

  it("keeps an unknown upstream status non-terminal with its raw value", async () => {
    replyStatus(200, { state: "defragmenting" });
    await expect(adapter().doGetStatus(ref, createTestContext())).resolves.toMatchObject({
      status: "working",
      rawStatus: "defragmenting",
    });
  });

  it("paces polling from the job's age, and lets Retry-After take precedence", async () => {
    clock = startedAt + 3_500;
    replyStatus(200, { state: "rendering" });
    await expect(adapter().doGetStatus(ref, createTestContext())).resolves.toMatchObject({
      pollIntervalMs: 4_000,
    });
    replyStatus(200, { state: "rendering" }, { "retry-after": "7" });
    await expect(adapter().doGetStatus(ref, createTestContext())).resolves.toMatchObject({
      pollIntervalMs: 7_000,
    });
    clock = startedAt + 600_000;
    replyStatus(200, { state: "rendering" });
    await expect(adapter().doGetStatus(ref, createTestContext())).resolves.toMatchObject({
      pollIntervalMs: 8_000,
    });
    clock = startedAt;
  });

  it("treats HTTP 202 as working whatever the body says", async () => {
    replyStatus(202, "");
    await expect(adapter().doGetStatus(ref, createTestContext())).resolves.toMatchObject({
      status: "working",
      rawStatus: "HTTP 202",
    });
  });

  it("builds a completed result from the result path", async () => {
    replyStatus(200, { state: "done", output: { frames: 24, url: "https://cdn.example.test/r-42.mp4" } });
    const snapshot = await adapter().doGetStatus(ref, createTestContext());
    expect(snapshot.status).toBe("completed");
    expect(snapshot.result?.isError).toBeUndefined();
    expect(snapshot.result?.structuredContent).toEqual({ frames: 24, url: "https://cdn.example.test/r-42.mp4" });
    expect(snapshot.result?.content[0]).toMatchObject({ type: "text" });
    expect(JSON.parse((snapshot.result?.content[0] as { text: string }).text)).toEqual({
      frames: 24,
      url: "https://cdn.example.test/r-42.mp4",
    });
    expect(snapshot.pollIntervalMs).toBeUndefined();
  });

  it("wraps a non-object result for structuredContent", async () => {
    replyStatus(200, { state: "done", output: "https://cdn.example.test/r-42.mp4" });
    await expect(adapter().doGetStatus(ref, createTestContext())).resolves.toMatchObject({
      result: { structuredContent: { result: "https://cdn.example.test/r-42.mp4" } },
    });
  });

  it("fetches the result with a follow-up GET when configured", async () => {
    replyStatus(200, { state: "done", resultId: "out-7" });
    farm.intercept({ path: "/api/outputs/out-7", method: "GET" }).reply(200, { output: { frames: 24 } });
    const snapshot = await adapter({
      result: { ...renderFarmConfig().result!, url: "/outputs/{{body.resultId}}" },
    }).doGetStatus(ref, createTestContext());
    expect(snapshot.result?.structuredContent).toEqual({ frames: 24 });
  });

  it("builds structuredContent from named fields, for success and error results", async () => {
    const fields = {
      ...renderFarmConfig().result!,
      fields: { frames: "output.frames", lastLines: { path: "log[-2:]", all: true }, missing: "nothing.here" },
    };
    replyStatus(200, { state: "done", output: { frames: 24 }, log: ["a", "b", "c"] });
    await expect(adapter({ result: fields }).doGetStatus(ref, createTestContext())).resolves.toMatchObject({
      result: { structuredContent: { frames: 24, lastLines: ["b", "c"] } },
    });
    replyStatus(200, { state: "crashed", log: ["a", "b", "c"] });
    const failed = await adapter({ result: fields }).doGetStatus(ref, createTestContext());
    expect(failed.result).toMatchObject({ isError: true, structuredContent: { lastLines: ["b", "c"] } });
    expect(failed.result?.structuredContent).not.toHaveProperty("missing");
  });

  it("ends a job that ran and failed as completed with isError, its reason and a log tail, secrets redacted", async () => {
    replyStatus(200, {
      state: "crashed",
      failure: { reason: "out of GPU memory" },
      log: ["frame 1 ok", `using token ${renderFarmToken}`, "frame 2: CUDA error"],
    });
    const snapshot = await adapter().doGetStatus(ref, createTestContext());
    expect(snapshot).toMatchObject({ status: "completed", rawStatus: "crashed", result: { isError: true } });
    const text = (snapshot.result?.content[0] as { text: string }).text;
    expect(text).toContain("out of GPU memory");
    expect(text).toContain("frame 2: CUDA error");
    expect(text).not.toContain("frame 1 ok");
    expect(text).not.toContain(renderFarmToken);
    expect(text).toContain("[redacted]");
  });

  it("makes a log tail terminal-safe: no title, clipboard or screen escapes, no carriage return or bidi override", async () => {
    replyStatus(200, {
      state: "crashed",
      log: ["frame 1 ok", "\u001b]0;owned\u0007\u001b]52;c;ZWNobw==\u0007\u001b[2Jdone\rApproved \u202Eyes"],
    });
    const snapshot = await adapter().doGetStatus(ref, createTestContext());
    const text = (snapshot.result?.content[0] as { text: string }).text;
    expect(text).toContain("done␍Approved <U+202E>yes");
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  });

  it("reports cancelled from the status value, and from cancel.recognizedBy on a terminal job", async () => {
    replyStatus(200, { state: "aborted" });
    await expect(adapter().doGetStatus(ref, createTestContext())).resolves.toMatchObject({ status: "cancelled" });
    replyStatus(200, { state: "crashed", abortedByUser: true });
    await expect(adapter().doGetStatus(ref, createTestContext())).resolves.toMatchObject({
      status: "cancelled",
      rawStatus: "crashed",
    });
  });

  it("maps a configured failed value to a protocol-level failure", async () => {
    replyStatus(200, { state: "expired" });
    const snapshot = await adapter({ status: { ...renderFarmConfig().status!, failed: ["expired"] } }).doGetStatus(
      ref,
      createTestContext(),
    );
    expect(snapshot).toMatchObject({ status: "failed", error: { code: -32603 } });
  });

  it("raises JobNotFoundError for 404 and 410 once the job is past the grace window", async () => {
    clock = startedAt + 30_000;
    replyStatus(404, { error: "not_found" });
    await expect(adapter().doGetStatus(ref, createTestContext())).rejects.toBeInstanceOf(JobNotFoundError);
    replyStatus(410, "");
    await expect(adapter().doGetStatus(ref, createTestContext())).rejects.toBeInstanceOf(JobNotFoundError);
  });

  it("reads a 404 shortly after the submit as not visible yet (working), since upstreams may lag", async () => {
    clock = startedAt + 29_999;
    replyStatus(404, { error: "not_found" });
    const snapshot = await adapter().doGetStatus(ref, createTestContext());
    expect(snapshot).toMatchObject({ status: "working", rawStatus: "HTTP 404" });
    expect(snapshot.message).toMatch(/not visible upstream yet/);
    expect(snapshot.pollIntervalMs).toBeGreaterThan(0);
    replyStatus(404, { error: "not_found" });
    const withoutGrace = adapter({ status: { ...renderFarmConfig().status!, goneGraceMs: 0 } });
    await expect(withoutGrace.doGetStatus(ref, createTestContext())).rejects.toBeInstanceOf(JobNotFoundError);
  });

  it("raises a retryable UpstreamError with Retry-After for 503 and 429", async () => {
    replyStatus(503, { message: "maintenance" }, { "retry-after": "12" });
    await expect(adapter().doGetStatus(ref, createTestContext())).rejects.toMatchObject({
      name: "UpstreamError",
      isRetryable: true,
      retryAfterMs: 12_000,
      httpStatus: 503,
    });
    replyStatus(429, "");
    await expect(adapter().doGetStatus(ref, createTestContext())).rejects.toMatchObject({
      isRetryable: true,
      httpStatus: 429,
    });
  });

  it("raises a non-retryable UpstreamError when access is lost (401, 403), never echoing the token", async () => {
    replyStatus(401, { message: `token ${renderFarmToken} revoked` });
    const failure = await adapter()
      .doGetStatus(ref, createTestContext())
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ isRetryable: false, httpStatus: 401 });
    expect((failure as Error).message).not.toContain(renderFarmToken);
  });

  // A 2xx that cannot be read is an OutcomeUnknownError (an UpstreamError) since the WeakSet that marked
  // such failures gave way to the core's class; for a status read it is retried like any other.
  it("turns a malformed status answer into a retryable UpstreamError", async () => {
    replyStatus(200, '{"state": ');
    const failure = await adapter()
      .doGetStatus(ref, createTestContext())
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ name: "OutcomeUnknownError", isRetryable: true });
  });

  it("refuses a status read redirected to a foreign origin instead of reporting that origin's answer", async () => {
    replyStatus(302, "", { location: "http://169.254.169.254/latest/meta-data" });
    const failure = await adapter()
      .doGetStatus(ref, createTestContext())
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ isRetryable: false });
    // The client reads that the redirect was refused; where it pointed is for the debug log only.
    expect((failure as Error).message).toMatch(/the status request was redirected to an origin that is not allowed/);
    expect((failure as Error).message).not.toMatch(/169\.254\.169\.254/);
  });

  it("follows a result redirect to an allowedRedirectOrigins entry, without credentials", async () => {
    replyStatus(200, { state: "done", resultId: "out-7" });
    farm
      .intercept({ path: "/api/outputs/out-7", method: "GET" })
      .reply(302, "", { headers: { location: "https://blobs.example.test/o/7?sig=1" } });
    let authorization: string | undefined = "unset";
    agent
      .get("https://blobs.example.test")
      .intercept({ path: "/o/7?sig=1", method: "GET" })
      .reply((options) => {
        authorization = (options.headers as Record<string, string>)["authorization"];
        return { statusCode: 200, data: { output: { frames: 24 } } };
      });
    const config = {
      result: { ...renderFarmConfig().result!, url: "/outputs/{{body.resultId}}" },
      allowedRedirectOrigins: ["https://blobs.example.test"],
    };
    const snapshot = await adapter(config).doGetStatus(ref, createTestContext());
    expect(snapshot.result?.structuredContent).toEqual({ frames: 24 });
    expect(authorization).toBeUndefined();
  });

  it("rejects a status answer over maxResponseBytes with a clear message", async () => {
    replyStatus(200, { state: "rendering", padding: "z".repeat(4_000) });
    await expect(adapter({ maxResponseBytes: 1_024 }).doGetStatus(ref, createTestContext())).rejects.toThrow(
      /larger than maxResponseBytes \(1024 bytes\)/,
    );
  });
});
