import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRedisSharedState } from "../packages/server/src/connect-shared-state.js";
import { capturingLogger } from "../packages/server/src/test-support/capturing-logger.js";
import { freeLoopbackPort, startTestRedis, type TestRedis } from "./support/redis-server.js";

/**
 * Connecting to the replicas' Redis: a password in the URL or given apart, never written to a log; a
 * wrong one, or no Redis at all, is a replica on its own (one warning), not a failed start.
 */

const password = "redis-password-0f9e8d7c6b5a";
let redis: TestRedis;

beforeAll(async () => {
  redis = await startTestRedis({ password });
});
afterAll(async () => {
  await redis?.stop();
});

async function connect(options: { url: string; password?: string }) {
  const { logger, entries } = capturingLogger();
  const startedAt = performance.now();
  const state = await connectRedisSharedState({ ...options, keyPrefix: "connection-test", logger });
  const tookMs = performance.now() - startedAt;
  return { state, entries, tookMs, logText: () => JSON.stringify(entries) };
}

describe("connecting to the shared Redis", () => {
  it("takes the password from the URL or apart from it, and never logs it", async () => {
    for (const options of [
      { url: `redis://:${password}@127.0.0.1:${redis.port}` },
      { url: `redis://127.0.0.1:${redis.port}`, password },
    ]) {
      const connected = await connect(options);
      try {
        expect(connected.state.snapshots.active).toBe(true);
        expect(connected.logText()).not.toContain(password);
        expect(connected.logText()).not.toContain(`127.0.0.1:${redis.port}`);
      } finally {
        await connected.state.close();
      }
    }
  });

  it("serves on its own, with one warning naming no password, when the password is wrong", async () => {
    const wrong = "wrong-password-a1b2c3d4e5";
    const connected = await connect({ url: `redis://:${wrong}@127.0.0.1:${redis.port}` });
    try {
      expect(connected.state.snapshots.active).toBe(false);
      expect(await connected.state.answers.claim("job", ["approve"])).toEqual(["approve"]);
      await new Promise((resolve) => setTimeout(resolve, 1200));
      const warnings = connected.entries.filter((entry) => entry.level === 40);
      expect(warnings).toHaveLength(1);
      expect(connected.logText()).not.toContain(wrong);
    } finally {
      await connected.state.close();
    }
  });

  it("starts within its bound when nothing listens, and answers without Redis", async () => {
    const port = await freeLoopbackPort();
    const connected = await connect({ url: `redis://127.0.0.1:${port}` });
    try {
      expect(connected.tookMs).toBeLessThan(3000);
      expect(connected.state.snapshots.active).toBe(false);
      expect(await connected.state.deliveries.firstSighting("delivery", 60_000)).toBe(true);
      expect(connected.entries.filter((entry) => entry.level === 40)).toHaveLength(1);
    } finally {
      await connected.state.close();
    }
  });
});
