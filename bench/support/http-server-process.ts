import { connectRedisSharedState, createSilentLogger, noSharedState, startHttpServer } from "@jobtasks/server";
import { createBenchService, createStatelessAdapter } from "./bench-service.js";

/**
 * The server half of the HTTP benchmark, in its own process so that the load generator does not eat into
 * its CPU time unnoticed, and so that its CPU use can be read on its own. Talks to the parent over IPC:
 * it announces its URL, answers "cpu" with its CPU time so far, and exits on "stop", when the parent goes
 * away, or after a hard time limit, whichever comes first.
 */

export type ServerProcessMessage =
  | { type: "listening"; url: string }
  | { type: "cpu"; userMicros: number; systemMicros: number; upstreamReads: number };

export type ParentMessage = { type: "cpu" } | { type: "stop" };

const hardLimitMs = 150_000;

/**
 * `redisUrl`: share state through that Redis, under `keyPrefix` (default this process's own), and open
 * the ids of the other replicas of one `secret` (bench/replicas.ts measures what sharing costs and saves).
 */
export async function serveForBenchmark(
  snapshotCacheMs: number,
  options: { redisUrl?: string; keyPrefix?: string; secret?: string; commandTimeoutMs?: number } = {},
): Promise<void> {
  const send = (message: ServerProcessMessage) => process.send?.(message);
  const { adapter, counts } = createStatelessAdapter();
  const logger = createSilentLogger();
  const sharedState = options.redisUrl
    ? await connectRedisSharedState({
        url: options.redisUrl,
        keyPrefix: options.keyPrefix ?? `bench-${process.pid}`,
        logger,
        ...(options.commandTimeoutMs !== undefined ? { commandTimeoutMs: options.commandTimeoutMs } : {}),
      })
    : noSharedState;
  const service = createBenchService([{ name: "bench", adapter }], { snapshotCacheMs, sharedState }, options.secret);
  const server = await startHttpServer({
    service,
    logger,
    name: "jobtasks-bench",
    version: "0.0.0",
    host: "127.0.0.1",
    port: 0,
  });

  const stop = async () => {
    await server.close();
    await sharedState.close();
    process.exit(0);
  };
  setTimeout(() => void stop(), hardLimitMs).unref();
  process.on("disconnect", () => void stop());
  process.on("message", (message: ParentMessage) => {
    if (message.type === "stop") void stop();
    if (message.type === "cpu") {
      const usage = process.cpuUsage();
      send({ type: "cpu", userMicros: usage.user, systemMicros: usage.system, upstreamReads: counts.getStatus });
    }
  });
  send({ type: "listening", url: server.url });
}
