import { UpstreamError } from "@jobtasks/core";
import { createTestContext } from "@jobtasks/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  at,
  createMockGitlab,
  createTestAdapter,
  json,
  nestedArrays,
  pipeline,
  project,
  projectPath,
  testToken,
} from "./test-support/mock-gitlab.js";

// A fresh GitLab per test; every answer a test arranged must have been asked for.
let mock = createMockGitlab();
beforeEach(() => {
  mock = createMockGitlab();
});
afterEach(() => mock.agent.assertNoPendingInterceptors());

const pipelineId = 1284711;
const path = `${projectPath}/pipelines/${pipelineId}`;
const now = Date.parse("2026-11-30T09:15:00Z");
const resetInSeconds = (seconds: number) => String(Math.floor(now / 1000) + seconds);

/** The job list every status read asks for after the pipeline. */
function arrangeJobs(headers: Record<string, string> = json.headers): void {
  mock.gitlab.intercept({ path: at(`${path}/jobs`), method: "GET" }).reply(200, [], { headers });
}

describe("talking to GitLab", () => {
  it("sends the token as PRIVATE-TOKEN to the self-managed base URL", async () => {
    let sent: unknown;
    mock.gitlab.intercept({ path: at(path), method: "GET" }).reply((options) => {
      sent = (options.headers as Record<string, string>)["private-token"];
      return { statusCode: 200, data: pipeline({ status: "running" }), responseOptions: json };
    });
    arrangeJobs();
    await createTestAdapter(mock).doGetStatus({ project, pipelineId }, createTestContext());
    expect(sent).toBe(testToken);
  });

  it("reads a pipeline again with If-None-Match, and a 304 answers as the remembered pipeline did", async () => {
    const adapter = createTestAdapter(mock);
    mock.gitlab
      .intercept({ path: at(path), method: "GET" })
      .reply(200, pipeline({ status: "running" }), { headers: { ...json.headers, etag: 'W/"5d1c1c6a"' } });
    arrangeJobs();
    const first = await adapter.doGetStatus({ project, pipelineId }, createTestContext());
    let conditional: unknown;
    mock.gitlab.intercept({ path: at(path), method: "GET" }).reply((options) => {
      conditional = (options.headers as Record<string, string>)["if-none-match"];
      return { statusCode: 304, data: "" };
    });
    arrangeJobs();
    expect(await adapter.doGetStatus({ project, pipelineId }, createTestContext())).toEqual(first);
    expect(conditional).toBe('W/"5d1c1c6a"');
  });

  it("suggests a longer poll interval when the rate-limit window runs low", async () => {
    const adapter = createTestAdapter(mock, { now: () => now, pollIntervalMs: 5_000 });
    const headers = (remaining: number) => ({
      ...json.headers,
      "ratelimit-limit": "2000",
      "ratelimit-remaining": String(remaining),
      "ratelimit-reset": resetInSeconds(60),
    });
    mock.gitlab
      .intercept({ path: at(path), method: "GET" })
      .reply(200, pipeline({ status: "running" }), { headers: headers(1500) });
    arrangeJobs(headers(1499));
    expect((await adapter.doGetStatus({ project, pipelineId }, createTestContext())).pollIntervalMs).toBe(5_000);
    mock.gitlab
      .intercept({ path: at(path), method: "GET" })
      .reply(200, pipeline({ status: "running" }), { headers: headers(5) });
    arrangeJobs(headers(4));
    // Four requests left for 60 s: one every 15 s.
    expect((await adapter.doGetStatus({ project, pipelineId }, createTestContext())).pollIntervalMs).toBe(15_000);
  });

  it("suggests a wait that grows with an outage's length, from the poll interval, and forgets it once GitLab answers", async () => {
    let clock = now;
    const adapter = createTestAdapter(mock, { now: () => clock, pollIntervalMs: 5_000 });
    const waits: Array<number | undefined> = [];
    for (const elapsedMs of [0, 2_000, 5_000, 10_000, 20_000, 40_000, 80_000, 160_000]) {
      clock = now + elapsedMs;
      const failure =
        elapsedMs % 20_000 === 0
          ? () =>
              mock.gitlab
                .intercept({ path: at(path), method: "GET" })
                .replyWithError(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }))
          : () => mock.gitlab.intercept({ path: at(path), method: "GET" }).reply(502, "<html>502 Bad Gateway</html>");
      failure();
      const error = await adapter
        .doGetStatus({ project, pipelineId }, createTestContext())
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ isRetryable: true, isThrottled: false });
      waits.push((error as UpstreamError).retryAfterMs);
    }
    // A blip shorter than one interval is left to the server's quick retries; then as long as it lasted, at most a minute.
    expect(waits).toEqual([undefined, undefined, 5_000, 10_000, 20_000, 40_000, 60_000, 60_000]);
    mock.gitlab.intercept({ path: at(path), method: "GET" }).reply(200, pipeline({ status: "running" }), json);
    arrangeJobs();
    expect((await adapter.doGetStatus({ project, pipelineId }, createTestContext())).pollIntervalMs).toBe(5_000);
    clock += 1_000;
    mock.gitlab.intercept({ path: at(path), method: "GET" }).reply(503, "<html>503</html>");
    const next = await adapter
      .doGetStatus({ project, pipelineId }, createTestContext())
      .catch((caught: unknown) => caught);
    expect((next as UpstreamError).retryAfterMs).toBeUndefined();
  });

  it("keeps GitLab's own Retry-After on a 503 during an outage", async () => {
    let clock = now;
    const adapter = createTestAdapter(mock, { now: () => clock, pollIntervalMs: 5_000 });
    for (const elapsedMs of [0, 30_000]) {
      clock = now + elapsedMs;
      mock.gitlab
        .intercept({ path: at(path), method: "GET" })
        .reply(503, "down for maintenance", { headers: { "retry-after": "7" } });
      const error = await adapter
        .doGetStatus({ project, pipelineId }, createTestContext())
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ retryAfterMs: 7_000 });
    }
  });

  it("reports a 429 as a throttled UpstreamError that waits as long as Retry-After says", async () => {
    mock.gitlab
      .intercept({ path: at(path), method: "GET" })
      .reply(429, { message: "Retry later" }, { headers: { ...json.headers, "retry-after": "42" } });
    const error = await createTestAdapter(mock, { now: () => now })
      .doGetStatus({ project, pipelineId }, createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ httpStatus: 429, isThrottled: true, isRetryable: true, retryAfterMs: 42_000 });
  });

  it("without Retry-After, waits for the rate-limit window to reset", async () => {
    mock.gitlab.intercept({ path: at(path), method: "GET" }).reply(429, "Retry later", {
      headers: { "ratelimit-remaining": "0", "ratelimit-limit": "2000", "ratelimit-reset": resetInSeconds(30) },
    });
    const error = await createTestAdapter(mock, { now: () => now })
      .doGetStatus({ project, pipelineId }, createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ isThrottled: true, retryAfterMs: 30_000 });
  });

  it("refuses without retrying when the token is rejected, and says why without the token", async () => {
    mock.gitlab.intercept({ path: at(path), method: "GET" }).reply(401, { message: "401 Unauthorized" }, json);
    const error = await createTestAdapter(mock)
      .doGetStatus({ project, pipelineId }, createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ httpStatus: 401, isRetryable: false });
    expect((error as Error).message).toContain("the token is invalid or expired");
    expect((error as Error).message).not.toContain(testToken);
  });

  it("counts an answer that is not a pipeline as a passing fault", async () => {
    mock.gitlab
      .intercept({ path: at(path), method: "GET" })
      .reply(200, "<html>sign in</html>", { headers: { "content-type": "text/html" } });
    const error = await createTestAdapter(mock)
      .doGetStatus({ project, pipelineId }, createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ isRetryable: true });
  });
});

describe("bodies nested too deeply", () => {
  it("refuses a pipeline answer nested deeper than the core's bound, saying so", async () => {
    mock.gitlab
      .intercept({ path: at(path), method: "GET" })
      .reply(200, pipeline({ status: "running", extra: nestedArrays(300, 1) }), json);
    const error = await createTestAdapter(mock)
      .doGetStatus({ project, pipelineId }, createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as Error).message).toBe("GitLab answered GET with a body nested more than 256 levels deep");
    expect(error).toMatchObject({ isRetryable: false });
  });

  it("gives no reason for a refusal whose body is nested too deeply", async () => {
    mock.gitlab
      .intercept({ path: at(path), method: "GET" })
      .reply(400, { message: { base: nestedArrays(300, "Reference not found") } }, json);
    const error = await createTestAdapter(mock)
      .doGetStatus({ project, pipelineId }, createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ httpStatus: 400 });
    expect((error as Error).message).toBe("GitLab refused GET: HTTP 400");
  });
});
