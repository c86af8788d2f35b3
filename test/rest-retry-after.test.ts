import { afterEach, describe, expect, it } from "vitest";
import { MockAgent } from "undici";
import type { AdapterContext } from "@jobtasks/core";
import { createTestContext } from "@jobtasks/testkit";
import { restAdapter } from "@jobtasks/rest";
import { SnapshotReader, createSilentLogger, type ReadTarget } from "@jobtasks/server";

/**
 * A REST upstream's 429 with Retry-After, through the server's snapshot reader: no status GET is sent before
 * the Retry-After has elapsed, neither by the quick retry inside one read nor for a client polling early.
 */

const origin = "https://jobs.example.test";
const agent = new MockAgent();
agent.disableNetConnect();
const jobs = agent.get(origin);
afterEach(() => agent.assertNoPendingInterceptors());

const adapter = restAdapter(
  {
    baseUrl: `${origin}/api`,
    tools: [{ name: "run", description: "Run a job.", submit: { url: "/jobs" } }],
    reference: { path: "id" },
    status: { url: "/jobs/{{job.id}}", field: "state", working: ["running"], completed: ["done"] },
  },
  { dispatcher: agent },
);
const target: ReadTarget = { instance: "jobs", adapter, ref: { id: "j-1", createdAt: Date.now() } };

const context = (): AdapterContext => createTestContext({ principal: "tester" });

function reader() {
  return new SnapshotReader({
    logger: createSilentLogger(),
    snapshotCacheMs: 0,
    immediateRetries: 2,
    immediateRetryDelayMs: 10,
  });
}

/** Each status GET the upstream received, with the time it arrived and the time its answer was sent. */
function answerStatus(answers: { statusCode: number; retryAfter?: string; body: object }[]) {
  const gets: number[] = [];
  for (const answer of answers) {
    jobs.intercept({ path: "/api/jobs/j-1", method: "GET" }).reply(() => {
      gets.push(performance.now());
      return {
        statusCode: answer.statusCode,
        data: answer.body,
        responseOptions: { headers: answer.retryAfter ? { "retry-after": answer.retryAfter } : {} },
      };
    });
  }
  return gets;
}

describe("rest upstream Retry-After through the snapshot reader", () => {
  it("waits out a 429's Retry-After before the quick retry", async () => {
    const gets = answerStatus([
      { statusCode: 429, retryAfter: "1", body: { message: "slow down" } },
      { statusCode: 200, body: { state: "running" } },
    ]);
    await expect(reader().read(target, context())).resolves.toMatchObject({ status: "working", rawStatus: "running" });
    expect(gets).toHaveLength(2);
    expect(gets[1]! - gets[0]!).toBeGreaterThanOrEqual(1_000);
  });

  it("answers early polls with the asked-to-wait snapshot and sends no GET until the Retry-After has elapsed", async () => {
    const gets = answerStatus([{ statusCode: 429, retryAfter: "30", body: { message: "slow down" } }]);
    const snapshots = reader();
    const first = await snapshots.read(target, context());
    expect(first).toMatchObject({ status: "working", rawStatus: "upstream_throttled" });
    expect(first.message).toMatch(/asked to wait until/);
    const early = await snapshots.read(target, context());
    expect(early.message).toBe(first.message);
    expect(early.pollIntervalMs).toBeGreaterThan(25_000);
    expect(gets).toHaveLength(1);
  });
});
