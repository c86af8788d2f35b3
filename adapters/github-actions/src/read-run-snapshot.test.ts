import { JobNotFoundError, UpstreamError } from "@jobtasks/core";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { UpstreamRequestEvent } from "./create-github-client.js";
import {
  createTestAdapter,
  createTestContext,
  fixture,
  fixtureText,
  github,
  nock,
  runPath,
  runRef,
  workflowRun,
} from "./test-support/github-fixtures.js";

const attemptPath = `${runPath}/attempts/1`;

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending, "every arranged GitHub call was made").toEqual([]);
});

describe("doGetStatus of a run that is not finished", () => {
  it.each([
    ["queued", "queued"],
    ["requested", "requested: GitHub is preparing the run"],
    ["pending", "waiting for concurrency group"],
  ])("reports %s as working with an agent-readable message, in one request", async (status, message) => {
    github().get(attemptPath).reply(200, workflowRun({ status }));
    const requests: UpstreamRequestEvent[] = [];
    const snapshot = await createTestAdapter({}, requests).doGetStatus(runRef, createTestContext());
    expect(snapshot).toMatchObject({
      status: "working",
      rawStatus: status,
      message,
      updatedAt: "2026-11-20T10:04:12Z",
    });
    expect(requests).toHaveLength(1);
  });

  it("describes progress from the attempt's jobs: job, step n/m, jobs done", async () => {
    github().get(attemptPath).reply(200, workflowRun());
    github().get(`${attemptPath}/jobs`).query({ per_page: 100 }).reply(200, fixture("attempt-jobs-in-progress.json"));
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect(snapshot).toMatchObject({
      status: "working",
      rawStatus: "in_progress",
      message: "build: step 3/7 'Run tests' (2 of 4 jobs done)",
    });
  });

  it("keeps an undocumented status working and reports it raw", async () => {
    github()
      .get(attemptPath)
      .reply(200, workflowRun({ status: "hibernating" }));
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect(snapshot.status).toBe("working");
    expect(snapshot.rawStatus).toBe("hibernating");
    expect(snapshot.message).toContain("'hibernating'");
  });
});

describe("doGetStatus of a finished run", () => {
  it("answers a failed run as completed with isError, failed steps with their log end, and the attempt's artifacts", async () => {
    github()
      .get(attemptPath)
      .reply(200, workflowRun({ status: "completed", conclusion: "failure" }));
    github().get(`${attemptPath}/jobs`).query({ per_page: 100 }).reply(200, fixture("attempt-jobs-failure.json"));
    github().get(`${runPath}/artifacts`).query({ per_page: 100 }).reply(200, fixture("artifacts.json"));
    // The log endpoint redirects to short-lived blob storage, as GitHub does.
    github().get("/repos/octo-org/octo-app/actions/jobs/25880011003/logs").reply(302, "", {
      location: "https://productionresultssa1.blob.core.windows.net/actions-results/job-logs.txt?sig=abc",
    });
    // The token must not follow the redirect to another origin.
    nock("https://productionresultssa1.blob.core.windows.net", { badheaders: ["authorization"] })
      .get("/actions-results/job-logs.txt")
      .query(true)
      .reply(200, fixtureText("job-log-failure.txt"), { "content-type": "text/plain" });

    const snapshot = await createTestAdapter({
      logs: { maxLinesPerStep: 4, maxBytes: 4096, maxFailedJobs: 3 },
    }).doGetStatus(runRef, createTestContext());
    expect(snapshot.status).toBe("completed");
    expect(snapshot.rawStatus).toBe("completed/failure");
    expect(snapshot.result?.isError).toBe(true);
    const structured = snapshot.result?.structuredContent as Record<string, any>;
    expect(structured).toMatchObject({
      repository: "octo-org/octo-app",
      runId: 9182736455,
      attempt: 1,
      workflow: "CI",
      conclusion: "failure",
      durationSeconds: 252,
      jobs: [
        { name: "lint", conclusion: "success" },
        { name: "build", conclusion: "failure" },
      ],
    });
    expect(structured.failedSteps).toEqual([
      {
        job: "build",
        step: "Run tests",
        conclusion: "failure",
        logTail: [
          "   → Test timed out in 5000ms.",
          " Test Files  1 failed | 11 passed (12)",
          "      Tests  1 failed | 181 passed (182)",
          "##[error]Process completed with exit code 1.",
        ].join("\n"),
        logTruncated: true,
      },
    ]);
    // The artifact uploaded by a later re-run is not part of this attempt's answer.
    expect(structured.artifacts).toEqual([
      {
        name: "coverage-report",
        sizeInBytes: 1843200,
        url: "https://api.github.com/repos/octo-org/octo-app/actions/artifacts/4412200001/zip",
        expiresAt: "2027-02-18T10:03:30Z",
      },
    ]);
    const text = (snapshot.result?.content[0] as { text: string }).text;
    expect(text).toContain("concluded failure after 4m 12s");
    expect(text).toContain("Failed: build > Run tests (failure), log end:");
    expect(text).toContain("##[error]Process completed with exit code 1.");
    expect(text).toContain("coverage-report (1.8 MiB)");
  });

  it("keeps the logs of a result within the byte budget", async () => {
    github()
      .get(attemptPath)
      .reply(200, workflowRun({ status: "completed", conclusion: "failure" }));
    github().get(`${attemptPath}/jobs`).query({ per_page: 100 }).reply(200, fixture("attempt-jobs-failure.json"));
    github().get(`${runPath}/artifacts`).query({ per_page: 100 }).reply(200, { total_count: 0, artifacts: [] });
    github()
      .get("/repos/octo-org/octo-app/actions/jobs/25880011003/logs")
      .reply(200, fixtureText("job-log-failure.txt"));
    const snapshot = await createTestAdapter({
      logs: { maxLinesPerStep: 100, maxBytes: 60, maxFailedJobs: 3 },
    }).doGetStatus(runRef, createTestContext());
    const [step] = (snapshot.result?.structuredContent as Record<string, any>).failedSteps;
    expect(Buffer.byteLength(step.logTail)).toBeLessThanOrEqual(60);
    expect(step.logTail).toBe("##[error]Process completed with exit code 1.");
    expect(step.logTruncated).toBe(true);
  });

  it("notes a log GitHub no longer has instead of failing the result", async () => {
    github()
      .get(attemptPath)
      .reply(200, workflowRun({ status: "completed", conclusion: "failure" }));
    github().get(`${attemptPath}/jobs`).query({ per_page: 100 }).reply(200, fixture("attempt-jobs-failure.json"));
    github().get(`${runPath}/artifacts`).query({ per_page: 100 }).reply(200, { total_count: 0, artifacts: [] });
    github().get("/repos/octo-org/octo-app/actions/jobs/25880011003/logs").reply(410, { message: "Gone" });
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect((snapshot.result?.structuredContent as Record<string, any>).failedSteps[0].logTail).toBe(
      "(log unavailable (HTTP 410))",
    );
  });

  it("lists only the artifacts created while this attempt ran, not an earlier attempt's", async () => {
    // Attempt 2 ran on 2026-11-21; the run's artifact list also holds attempt 1's upload of the 20th.
    const attempt2 = {
      run_attempt: 2,
      status: "completed",
      conclusion: "success",
      run_started_at: "2026-11-21T08:10:00Z",
      updated_at: "2026-11-21T08:20:00Z",
    };
    github().get(`${runPath}/attempts/2`).reply(200, workflowRun(attempt2));
    github().get(`${runPath}/attempts/2/jobs`).query(true).reply(200, { total_count: 0, jobs: [] });
    github().get(`${runPath}/artifacts`).query(true).reply(200, fixture("artifacts.json"));
    const snapshot = await createTestAdapter().doGetStatus({ ...runRef, attempt: 2 }, createTestContext());
    const artifacts = (snapshot.result?.structuredContent as Record<string, any>).artifacts;
    expect(artifacts.map((artifact: { name: string }) => artifact.name)).toEqual(["coverage-report-rerun"]);
  });

  it("notes a log that expired (404) as unavailable too", async () => {
    github()
      .get(attemptPath)
      .reply(200, workflowRun({ status: "completed", conclusion: "failure" }));
    github().get(`${attemptPath}/jobs`).query({ per_page: 100 }).reply(200, fixture("attempt-jobs-failure.json"));
    github().get(`${runPath}/artifacts`).query({ per_page: 100 }).reply(200, { total_count: 0, artifacts: [] });
    github().get("/repos/octo-org/octo-app/actions/jobs/25880011003/logs").reply(404, { message: "Not Found" });
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect((snapshot.result?.structuredContent as Record<string, any>).failedSteps[0].logTail).toBe(
      "(log unavailable (HTTP 404))",
    );
  });

  it.each([
    ["a server error (502)", 502, { message: "Bad gateway" }, {}],
    [
      "a rate limit (403, remaining 0)",
      403,
      { message: "API rate limit exceeded" },
      { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600) },
    ],
  ])(
    "does not freeze %s on the log download into the result: the read fails retryably",
    async (_label, status, body, headers) => {
      github()
        .get(attemptPath)
        .reply(200, workflowRun({ status: "completed", conclusion: "failure" }));
      github().get(`${attemptPath}/jobs`).query({ per_page: 100 }).reply(200, fixture("attempt-jobs-failure.json"));
      github().get(`${runPath}/artifacts`).query({ per_page: 100 }).reply(200, { total_count: 0, artifacts: [] });
      github().get("/repos/octo-org/octo-app/actions/jobs/25880011003/logs").reply(status, body, headers);
      // One minute after the run finished (its updated_at): the log may still come.
      const now = () => Date.parse("2026-11-20T10:05:12Z");
      const failure = await createTestAdapter({ now })
        .doGetStatus(runRef, createTestContext())
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(UpstreamError);
      expect((failure as UpstreamError).isRetryable).toBe(true);
      if (status === 403) expect((failure as UpstreamError).retryAfterMs).toBeGreaterThan(3_000_000);
    },
  );

  it.each([
    [
      "a refusal that is not a rate limit (403)",
      403,
      { message: "AuthenticationFailed" },
      "(log unavailable (HTTP 403))",
    ],
    ["rejected credentials (401)", 401, { message: "Bad credentials" }, "(log unavailable (HTTP 401))"],
  ])("notes %s on the log download instead of failing the finished run", async (_label, status, body, note) => {
    github()
      .get(attemptPath)
      .reply(200, workflowRun({ status: "completed", conclusion: "failure" }));
    github().get(`${attemptPath}/jobs`).query({ per_page: 100 }).reply(200, fixture("attempt-jobs-failure.json"));
    github().get(`${runPath}/artifacts`).query({ per_page: 100 }).reply(200, { total_count: 0, artifacts: [] });
    github().get("/repos/octo-org/octo-app/actions/jobs/25880011003/logs").reply(status, body);
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect(snapshot).toMatchObject({ status: "completed", result: { isError: true } });
    expect((snapshot.result?.structuredContent as Record<string, any>).failedSteps[0]).toMatchObject({
      logTail: note,
      logTruncated: true,
    });
  });

  it("notes a log host that still fails 5 min after the run finished (GitHub's updated_at), so every replica agrees", async () => {
    github()
      .get(attemptPath)
      .reply(200, workflowRun({ status: "completed", conclusion: "failure" }));
    github().get(`${attemptPath}/jobs`).query({ per_page: 100 }).reply(200, fixture("attempt-jobs-failure.json"));
    github().get(`${runPath}/artifacts`).query({ per_page: 100 }).reply(200, { total_count: 0, artifacts: [] });
    github()
      .get("/repos/octo-org/octo-app/actions/jobs/25880011003/logs")
      .reply(503, { message: "Service Unavailable" });
    const now = () => Date.parse("2026-11-20T10:10:12Z");
    const snapshot = await createTestAdapter({ now, requestRetries: 0 }).doGetStatus(runRef, createTestContext());
    expect(snapshot).toMatchObject({ status: "completed", result: { isError: true } });
    expect((snapshot.result?.structuredContent as Record<string, any>).failedSteps[0].logTail).toBe(
      "(log unavailable (HTTP 503), still failing 5 min after the run finished)",
    );
  });

  it.each(["success", "neutral", "skipped"])(
    "answers %s as completed without isError and fetches no log",
    async (conclusion) => {
      github()
        .get(attemptPath)
        .reply(200, workflowRun({ status: "completed", conclusion }));
      github().get(`${attemptPath}/jobs`).query({ per_page: 100 }).reply(200, { total_count: 0, jobs: [] });
      github().get(`${runPath}/artifacts`).query({ per_page: 100 }).reply(200, { total_count: 0, artifacts: [] });
      const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
      expect(snapshot.status).toBe("completed");
      expect(snapshot.result?.isError).toBe(false);
    },
  );

  it.each(["timed_out", "startup_failure", "action_required", "stale"])(
    "answers %s as completed with isError",
    async (conclusion) => {
      github()
        .get(attemptPath)
        .reply(200, workflowRun({ status: "completed", conclusion }));
      github().get(`${attemptPath}/jobs`).query({ per_page: 100 }).reply(200, { total_count: 0, jobs: [] });
      github().get(`${runPath}/artifacts`).query({ per_page: 100 }).reply(200, { total_count: 0, artifacts: [] });
      const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
      expect(snapshot).toMatchObject({ status: "completed", rawStatus: `completed/${conclusion}` });
      expect(snapshot.result?.isError).toBe(true);
    },
  );

  it("answers a cancelled run as cancelled", async () => {
    github()
      .get(attemptPath)
      .reply(200, workflowRun({ status: "completed", conclusion: "cancelled" }));
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect(snapshot).toMatchObject({ status: "cancelled", rawStatus: "completed/cancelled" });
  });

  it("keeps an unknown conclusion non-terminal", async () => {
    github()
      .get(attemptPath)
      .reply(200, workflowRun({ status: "completed", conclusion: "partially_succeeded" }));
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect(snapshot).toMatchObject({ status: "working", rawStatus: "completed/partially_succeeded" });
  });
});

describe("doGetStatus when the run is out of reach", () => {
  it.each([404, 410])("raises JobNotFoundError when GitHub answers %i for the attempt", async (status) => {
    github().get(attemptPath).reply(status, { message: "Not Found" });
    await expect(createTestAdapter().doGetStatus(runRef, createTestContext())).rejects.toBeInstanceOf(JobNotFoundError);
  });

  it("raises a non-retryable UpstreamError when the token lost access (403 without rate-limit signs)", async () => {
    github().get(attemptPath).reply(403, { message: "Resource not accessible by personal access token" });
    const error = await createTestAdapter()
      .doGetStatus(runRef, createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ httpStatus: 403, isRetryable: false });
    expect((error as Error).message).toContain("Resource not accessible by personal access token");
  });

  it("raises a non-retryable UpstreamError for revoked credentials", async () => {
    github().get(attemptPath).reply(401, { message: "Bad credentials" });
    await expect(createTestAdapter().doGetStatus(runRef, createTestContext())).rejects.toMatchObject({
      httpStatus: 401,
      isRetryable: false,
    });
  });

  it("raises a retryable UpstreamError for a server error", async () => {
    github().get(attemptPath).reply(503, { message: "Service Unavailable" });
    // Without GET retries, which would wait out 1 + 4 s (request-retries.test.ts covers them).
    await expect(
      createTestAdapter({ requestRetries: 0 }).doGetStatus(runRef, createTestContext()),
    ).rejects.toMatchObject({ httpStatus: 503, isRetryable: true });
  });
});
