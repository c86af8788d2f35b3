import { randomBytes } from "node:crypto";
import { TaskIdSealer, TaskService, createSilentLogger, startHttpServer } from "@jobtasks/server";
import { demoAdapter } from "@jobtasks/demo";
import { startSdk1TasksPeer } from "../peers/sdk1-tasks-peer.js";

/**
 * The server side of bench/peer-comparison.ts, one process per contender so that each one's CPU time can
 * be read on its own. "jobtasks" serves three endpoints, one per optimisation step, all against the demo
 * job API: the SDK path without the id memo, the SDK path with it, and the tasks/get fast path (with the
 * memo). Only one endpoint is loaded at a time, so a phase's CPU is that endpoint's. "peer" serves the SDK
 * 1.x tasks peer. Replies over IPC with CPU time and upstream reads; exits on "stop", when the parent
 * goes away, or after a hard time limit.
 */

export type ComparisonServerMessage =
  | { type: "listening"; urls: Record<string, string> }
  | { type: "cpu"; cpuMicros: number; upstreamReads: number };

export type ComparisonParentMessage = { type: "cpu" } | { type: "stop" };

const hardLimitMs = 200_000;

export async function serveForComparison(mode: "jobtasks" | "peer", demoApiUrl: string): Promise<void> {
  const send = (message: ComparisonServerMessage) => process.send?.(message);
  let upstreamReads = () => 0;
  let close: () => Promise<void>;
  let urls: Record<string, string>;

  if (mode === "peer") {
    const peer = await startSdk1TasksPeer({ demoApiUrl });
    upstreamReads = peer.upstreamReads;
    close = peer.close;
    urls = { peer: peer.url };
  } else {
    let reads = 0;
    const countingFetch: typeof fetch = (input, init) => {
      if ((init?.method ?? "GET") === "GET") reads += 1;
      return fetch(input, init);
    };
    upstreamReads = () => reads;
    const logger = createSilentLogger();
    const secret = randomBytes(32).toString("base64url");
    const serviceWith = (memoizedTaskIds: number | undefined) =>
      new TaskService({
        adapters: [{ name: "demo", adapter: demoAdapter({ baseUrl: demoApiUrl, fetch: countingFetch }) }],
        sealer: new TaskIdSealer({ secret, secretSource: "JOBTASKS_SECRET" }),
        logger,
        ...(memoizedTaskIds === undefined ? {} : { memoizedTaskIds }),
      });
    const withoutMemo = serviceWith(0);
    const withMemo = serviceWith(undefined);
    const common = { logger, name: "jobtasks-bench", version: "0.0.0", host: "127.0.0.1", port: 0 };
    const servers = {
      sdkPath: await startHttpServer({ ...common, service: withoutMemo, fastTasksGet: false }),
      sdkPathMemo: await startHttpServer({ ...common, service: withMemo, fastTasksGet: false }),
      fastPath: await startHttpServer({ ...common, service: withMemo }),
    };
    urls = Object.fromEntries(Object.entries(servers).map(([name, server]) => [name, server.url]));
    close = async () => {
      await Promise.all(Object.values(servers).map((server) => server.close()));
      await withoutMemo.close();
      await withMemo.close();
    };
  }

  const stop = async () => {
    await close();
    process.exit(0);
  };
  setTimeout(() => void stop(), hardLimitMs).unref();
  process.on("disconnect", () => void stop());
  process.on("message", (message: ComparisonParentMessage) => {
    if (message.type === "stop") void stop();
    if (message.type === "cpu") {
      const usage = process.cpuUsage();
      send({ type: "cpu", cpuMicros: usage.user + usage.system, upstreamReads: upstreamReads() });
    }
  });
  send({ type: "listening", urls });
}
