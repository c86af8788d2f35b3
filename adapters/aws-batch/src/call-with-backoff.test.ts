import { setTimeout as delay } from "node:timers/promises";
import { UpstreamError } from "@jobtasks/core";
import nock from "nock";
import { afterEach, describe, expect, it, vi } from "vitest";
import { awsBatch } from "./aws-batch-adapter.js";
import { callWithBackoff, jitteredDelay } from "./call-with-backoff.js";
import { batchOrigin, blockRealNetwork, testBatchClient, throttledReply } from "./test-support/aws-test-clients.js";
import { readFixture } from "./test-support/fixtures.js";
import { createTestContext } from "@jobtasks/testkit";

// vitest's fake timers do not reach node:timers/promises (vitest issue 10871), where the adapter waits:
// a spy that passes every wait through lets a test read the delays asked for.
vi.mock("node:timers/promises", async (importOriginal) => {
  const original = await importOriginal<typeof import("node:timers/promises")>();
  return { ...original, setTimeout: vi.fn(original.setTimeout) };
});

const policy = { maxAttempts: 4, baseDelayMs: 40, maxDelayMs: 100 };
const throttled = () =>
  Object.assign(new Error("Rate exceeded"), { name: "TooManyRequestsException", $metadata: { httpStatusCode: 429 } });

describe("jitteredDelay", () => {
  it("waits a random share of a ceiling that doubles per attempt and stops at maxDelayMs (full jitter)", () => {
    const half = { ...policy, random: () => 0.5 };
    expect([1, 2, 3, 4].map((attempt) => jitteredDelay(half, attempt))).toEqual([20, 40, 50, 50]);
  });

  it("spreads the waits of callers that retry at the same moment", () => {
    const draws = [0, 0.25, 0.999];
    const waits = draws.map((draw) => jitteredDelay({ ...policy, random: () => draw }, 2));
    expect(waits).toEqual([0, 20, 80]);
  });
});

describe("callWithBackoff", () => {
  afterEach(() => vi.restoreAllMocks());

  it("waits the jittered delay between throttled attempts, drawing a new random number each time", async () => {
    const draws = [0.1, 0.6, 0.9];
    const random = vi.fn(() => draws.shift() ?? 0);
    vi.mocked(delay).mockClear();
    let calls = 0;
    const result = await callWithBackoff(
      "DescribeJobs",
      async () => {
        calls += 1;
        if (calls < 4) throw throttled();
        return "answered";
      },
      { policy: { ...policy, random }, retryOn: "transient" },
    );
    expect(result).toBe("answered");
    expect(random).toHaveBeenCalledTimes(3);
    // Ceilings 40, 80, 100 (capped) times 0.1, 0.6, 0.9.
    expect(vi.mocked(delay).mock.calls.map(([ms]) => ms)).toEqual([4, 48, 90]);
  });

  it("gives up after maxAttempts with a retryable, throttled error", async () => {
    const error = await callWithBackoff("DescribeJobs", () => Promise.reject(throttled()), {
      policy: { ...policy, baseDelayMs: 0, maxDelayMs: 0 },
      retryOn: "transient",
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ isRetryable: true, isThrottled: true });
  });
});

describe("the adapter's random source", () => {
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it("is injected as a code-only option and used for every backoff wait", async () => {
    blockRealNetwork();
    nock(batchOrigin)
      .post("/v1/describejobs")
      .times(2)
      .reply(...throttledReply())
      .post("/v1/describejobs")
      .reply(200, readFixture("describe-jobs-running.json"));
    const random = vi.fn(() => 0);
    const adapter = awsBatch({
      batchClient: testBatchClient(1),
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
      random,
    });
    // watch_job's start backs off; a status read no longer does (the server's reader retries it).
    const watch = adapter.tools.find((tool) => tool.name === "watch_job")!;
    const started = await watch.doStart(
      watch.inputSchema.parse({ jobId: "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f" }),
      createTestContext(),
    );
    expect(started.snapshot?.status).toBe("working");
    expect(random).toHaveBeenCalledTimes(2);
  });
});
