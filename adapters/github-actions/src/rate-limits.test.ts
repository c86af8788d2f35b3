import { UpstreamError } from "@jobtasks/core";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { UpstreamRequestEvent } from "./create-github-client.js";
import {
  createTestAdapter,
  createTestContext,
  fixture,
  github,
  nock,
  runPath,
  runRef,
  workflowRun,
} from "./test-support/github-fixtures.js";

const attemptPath = `${runPath}/attempts/1`;
const jobsPath = `${attemptPath}/jobs`;

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending, "every arranged GitHub call was made").toEqual([]);
});

function budgetHeaders(remaining: number, resetInSeconds: number): Record<string, string> {
  return {
    "x-ratelimit-limit": "5000",
    "x-ratelimit-remaining": String(remaining),
    "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + resetInSeconds),
  };
}

describe("what one poll costs", () => {
  it("costs two requests for a running run, and the same two again as free 304s when nothing changed", async () => {
    const requests: UpstreamRequestEvent[] = [];
    const adapter = createTestAdapter({}, requests);
    const run = workflowRun();
    const jobs = fixture("attempt-jobs-in-progress.json");

    github()
      .get(attemptPath)
      .reply(200, run, { etag: 'W/"run-v1"', ...budgetHeaders(4990, 3000) });
    github()
      .get(jobsPath)
      .query({ per_page: 100 })
      .reply(200, jobs, { etag: 'W/"jobs-v1"', ...budgetHeaders(4989, 3000) });
    const first = await adapter.doGetStatus(runRef, createTestContext());

    // The second poll must be conditional; GitHub answers 304 with no body.
    github().get(attemptPath).matchHeader("if-none-match", 'W/"run-v1"').reply(304, "", budgetHeaders(4989, 2990));
    github()
      .get(jobsPath)
      .query({ per_page: 100 })
      .matchHeader("if-none-match", 'W/"jobs-v1"')
      .reply(304, "", budgetHeaders(4989, 2990));
    const second = await adapter.doGetStatus(runRef, createTestContext());

    expect(second).toEqual(first);
    expect(first.message).toBe("build: step 3/7 'Run tests' (2 of 4 jobs done)");
    expect(requests.map((request) => [request.path.split("?")[0], request.status])).toEqual([
      [attemptPath, 200],
      [jobsPath, 200],
      [attemptPath, 304],
      [jobsPath, 304],
    ]);
    const billable = requests.filter((request) => !request.notModified);
    expect(billable, "requests that count against the rate limit").toHaveLength(2);
  });

  it("sends If-None-Match only for a URL it has an ETag for", async () => {
    github()
      .get(attemptPath)
      .reply(function () {
        expect(this.req.headers["if-none-match"]).toBeUndefined();
        return [200, workflowRun({ status: "queued" })];
      });
    await createTestAdapter().doGetStatus(runRef, createTestContext());
  });
});

describe("rate limits", () => {
  it("does not retry a 429 and reports its retry-after to the core", async () => {
    const requests: UpstreamRequestEvent[] = [];
    github().get(attemptPath).reply(429, { message: "Too many requests" }, { "retry-after": "30" });
    // Server errors would be retried twice here; a 429 must not be.
    const adapter = createTestAdapter({ requestRetries: 2 }, requests);
    const error = await adapter.doGetStatus(runRef, createTestContext()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ httpStatus: 429, isRetryable: true, retryAfterMs: 30_000 });
    expect(requests).toHaveLength(1);
  });

  it("reports an exhausted primary budget (403, remaining 0) as retryable until the reset instead of waiting an hour", async () => {
    github()
      .get(attemptPath)
      .reply(403, { message: "API rate limit exceeded for user ID 583231." }, budgetHeaders(0, 3600));
    const error = await createTestAdapter()
      .doGetStatus(runRef, createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ httpStatus: 403, isRetryable: true });
    const retryAfterMs = (error as UpstreamError).retryAfterMs!;
    expect(retryAfterMs).toBeGreaterThan(3_590_000);
    expect(retryAfterMs).toBeLessThanOrEqual(3_600_000);
  });

  // Once shown through doGetStatus; a status read no longer waits (the next test), so the wait is shown
  // on the read before a cancel, which the server does not retry.
  it("waits out a short secondary limit (retry-after) inside a request outside status reads and succeeds", async () => {
    const requests: UpstreamRequestEvent[] = [];
    github()
      .get(attemptPath)
      .reply(
        403,
        { message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again." },
        { "retry-after": "1" },
      );
    github()
      .get(attemptPath)
      .reply(200, workflowRun({ status: "in_progress" }));
    github().post(`${runPath}/cancel`).reply(202, {});
    const started = Date.now();
    await createTestAdapter({ maxRateLimitWaitMs: 5_000 }, requests).doCancel!(runRef, createTestContext());
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(requests.map((request) => request.status)).toEqual([403, 200, 202]);
  });

  it("reports even a short secondary limit of a status read at once, with its retry-after, for the server's reader to wait out", async () => {
    const requests: UpstreamRequestEvent[] = [];
    github()
      .get(attemptPath)
      .reply(
        403,
        { message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again." },
        { "retry-after": "1" },
      );
    github()
      .get(attemptPath)
      .optionally()
      .reply(200, workflowRun({ status: "queued" }));
    const error = await createTestAdapter({ maxRateLimitWaitMs: 5_000 }, requests)
      .doGetStatus(runRef, createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ httpStatus: 403, isRetryable: true, isThrottled: true, retryAfterMs: 1_000 });
    expect(requests.map((request) => request.status)).toEqual([403]);
  });

  it("does not wait out a secondary limit longer than maxRateLimitWaitMs", async () => {
    github()
      .get(attemptPath)
      .reply(403, { message: "You have exceeded a secondary rate limit." }, { "retry-after": "120" });
    await expect(
      createTestAdapter({ maxRateLimitWaitMs: 5_000 }).doGetStatus(runRef, createTestContext()),
    ).rejects.toMatchObject({
      isRetryable: true,
      retryAfterMs: 120_000,
    });
  });

  it("raises pollIntervalMs when the budget runs low instead of failing", async () => {
    github()
      .get(attemptPath)
      .reply(200, workflowRun({ status: "queued" }), budgetHeaders(5000, 3600));
    const adapter = createTestAdapter({ pollIntervalMs: 10_000 });
    const healthy = await adapter.doGetStatus(runRef, createTestContext());
    expect(healthy.pollIntervalMs).toBeUndefined();

    // 50 requests left (1% of the limit) for 1000 s, one request per poll of a queued run: one poll every 20 s.
    github()
      .get(attemptPath)
      .reply(200, workflowRun({ status: "queued" }), budgetHeaders(50, 1000));
    const low = await adapter.doGetStatus(runRef, createTestContext());
    expect(low.status).toBe("working");
    expect(low.pollIntervalMs).toBeGreaterThanOrEqual(19_000);
    expect(low.pollIntervalMs).toBeLessThanOrEqual(20_000);
  });
});

describe("the safety read of runs followed with webhooks", () => {
  async function adapterWithBudget(remaining: number, resetInSeconds: number) {
    const adapter = createTestAdapter({ webhookSecret: "whsec-test-0123456789abcdef" });
    github()
      .get(attemptPath)
      .reply(200, workflowRun({ status: "queued" }), budgetHeaders(remaining, resetInSeconds));
    await adapter.doGetStatus(runRef, createTestContext());
    return adapter.events!;
  }

  it("spreads one read of each followed run over half of the token's hourly 5,000", async () => {
    const events = await adapterWithBudget(4990, 3000);
    // 1,000 runs × 2 requests in 2,500 requests an hour: every 48 minutes.
    expect(events.safetyReadIntervalMs!(1000)).toBe(48 * 60_000);
    expect(events.safetyReadIntervalMs!(10)).toBe(28_800);
  });

  it("spreads them over what is left until the reset once the budget runs low", async () => {
    // 4,000 left for 30 minutes is more than the hourly rate: that rate holds, and the reset moves nothing.
    expect((await adapterWithBudget(4000, 1800)).safetyReadIntervalMs!(100)).toBe(4.8 * 60_000);
    const events = await adapterWithBudget(500, 1800);
    // 250 requests to spare in 30 minutes: 100 runs × 2 requests fit once every 24 minutes.
    // (The reset is given in whole seconds, so up to one second sooner.)
    expect(events.safetyReadIntervalMs!(100)).toBeGreaterThan(24 * 60_000 - 1000);
    expect(events.safetyReadIntervalMs!(100)).toBeLessThanOrEqual(24 * 60_000);
  });

  it("asks for no longer wait before GitHub has reported a budget", () => {
    const events = createTestAdapter({ webhookSecret: "whsec-test-0123456789abcdef" }).events!;
    expect(events.safetyReadIntervalMs!(1000)).toBe(0);
  });
});
