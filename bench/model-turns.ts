import { z } from "@jobtasks/core";
import type { CallToolResult, JobAdapterV1, JobSnapshot } from "@jobtasks/core";
import { benchCaller, createBenchService } from "./support/bench-service.js";
import { describeMachine, formatNumber, heading, markdownTable } from "./support/measure.js";

/**
 * How many model turns does a client without the tasks extension spend following a long job? Every tool
 * call is a turn: the model reads the answer and decides the next call. A 10-minute job that posts a new
 * progress line every 15 s runs against a simulated clock (the server's `now` and `sleep`), so ten
 * minutes take milliseconds, and the agent calls task_status until the job is no longer working.
 *
 * Run: node --import tsx bench/model-turns.ts
 */

const jobMs = 10 * 60_000;
const progressEveryMs = 15_000;

function simulatedClock() {
  const clock = { now: Date.UTC(2026, 11, 1, 9, 0) };
  return {
    clock,
    now: () => clock.now,
    // Time passes only while someone waits; an aborted wait would reject, but nothing aborts here.
    sleep: async (milliseconds: number) => {
      clock.now += milliseconds;
    },
  };
}

/** A job that runs `jobMs` from its start on the simulated clock, with a new message every 15 s. */
function timedJobAdapter(now: () => number, pollIntervalMs: number) {
  const counts = { getStatus: 0 };
  const adapter: JobAdapterV1<{ startedAt: number }> = {
    specificationVersion: "v1",
    kind: "timed-bench",
    pollIntervalMs,
    tools: [
      {
        name: "long_job",
        description: "A ten-minute job.",
        inputSchema: z.strictObject({}),
        async doStart() {
          return { ref: { startedAt: now() } };
        },
      },
    ],
    async doGetStatus(ref): Promise<JobSnapshot> {
      counts.getStatus += 1;
      const elapsed = now() - ref.startedAt;
      if (elapsed >= jobMs)
        return { status: "completed", rawStatus: "success", result: { content: [{ type: "text", text: "done" }] } };
      return {
        status: "working",
        rawStatus: "running",
        message: `step ${Math.floor(elapsed / progressEveryMs) + 1} of ${jobMs / progressEveryMs}`,
      };
    },
  };
  return { adapter, counts };
}

interface Outcome {
  turns: number;
  statusCalls: number;
  upstreamReads: number;
  longestCallMs: number;
}

/** Start the job without the extension and follow it with task_status; counts every tool call. */
async function followWithHandles(options: { pollIntervalMs: number; waitSeconds?: number }): Promise<Outcome> {
  const { clock, now, sleep } = simulatedClock();
  const { adapter, counts } = timedJobAdapter(now, options.pollIntervalMs);
  const service = createBenchService([{ name: "bench", adapter }], { now, sleep, snapshotCacheMs: 1000 });
  const caller = { ...benchCaller(), tasksDeclared: false };
  let longestCallMs = 0;
  const call = async (name: string, args: Record<string, unknown>) => {
    const started = clock.now;
    const result = (await service.callTool(name, args, caller)) as CallToolResult;
    longestCallMs = Math.max(longestCallMs, clock.now - started);
    return result;
  };
  const handle = await call("long_job", {});
  const taskId = handle.structuredContent?.["taskId"] as string;
  let statusCalls = 0;
  let status = handle.structuredContent?.["status"];
  // Bounded: a 10-minute job must end long before 1000 calls.
  while (status === "working" && statusCalls < 1000) {
    statusCalls += 1;
    const answer = await call("task_status", {
      taskId,
      ...(options.waitSeconds !== undefined ? { waitSeconds: options.waitSeconds } : {}),
    });
    status = answer.structuredContent?.["status"];
  }
  if (status !== "completed") throw new Error(`the job ended ${String(status)} after ${statusCalls} calls`);
  await service.close();
  return { turns: 1 + statusCalls, statusCalls, upstreamReads: counts.getStatus, longestCallMs };
}

console.log(describeMachine());
heading("Model turns to follow a 10-minute job (new progress line every 15 s), simulated clock");
const rows: Array<Array<string | number>> = [];
for (const [label, options] of [
  ["handles, defaults (task_status waits 40 s), adapter polls every 2 s", { pollIntervalMs: 2_000 }],
  ["handles, defaults, adapter polls every 10 s (the GitHub example)", { pollIntervalMs: 10_000 }],
  ["handles, waitSeconds 50", { pollIntervalMs: 2_000, waitSeconds: 50 }],
  ["handles, waitSeconds 20", { pollIntervalMs: 2_000, waitSeconds: 20 }],
] as const) {
  const outcome = await followWithHandles(options);
  rows.push([
    label,
    outcome.turns,
    outcome.statusCalls,
    formatNumber(outcome.upstreamReads),
    `${formatNumber(outcome.longestCallMs / 1000, 1)} s`,
  ]);
}
// Peers, by arithmetic: a model that polls a plain status tool sleeps between calls, one turn per poll.
for (const seconds of [15, 30]) {
  rows.push([
    `a status tool polled by the model every ${seconds} s (today's CI MCP servers)`,
    1 + jobMs / (seconds * 1000),
    jobMs / (seconds * 1000),
    jobMs / (seconds * 1000),
    "0 s",
  ]);
}
rows.push([
  "tasks extension: the host polls tasks/get, the model waits for the result",
  1,
  0,
  "by the host's polling",
  "0 s",
]);
console.log(markdownTable(["client", "model turns", "task_status calls", "upstream reads", "longest call"], rows));
console.log(
  `\nA model turn is one tool call and the model's reading of its answer. The bound in the issue: at most 16 task_status calls for a 10-minute job with the defaults.`,
);
