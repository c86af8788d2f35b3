import { fork } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { startDemoApi } from "@jobtasks/demo";
import {
  describeMachine,
  formatNumber,
  heading,
  markdownTable,
  measureConcurrent,
  percentile,
} from "./support/measure.js";
import { createRpcClient, resultOf, type RpcClient } from "./support/rpc-client.js";
import {
  serveForComparison,
  type ComparisonParentMessage,
  type ComparisonServerMessage,
} from "./support/peer-comparison-process.js";

/**
 * jobtasks against the server a competent engineer would write instead (bench/peers/sdk1-tasks-peer.ts:
 * MCP SDK 1.x, its experimental tasks, a poller per task), both in front of the same demo job API, in the
 * same run. Every case runs in turns with the others, a bounded batch at a time, and is charged the CPU
 * time its own server process spent, so load from neighbours on a shared machine falls on all about
 * equally. jobtasks is measured at each optimisation step (SDK path, + id memo, + tasks/get fast path)
 * and on its cheapest request, server/discover; the peer on tasks/get and on ping, its cheapest.
 *
 * Run: node --import tsx bench/peer-comparison.ts
 */

const concurrency = 32;
const rounds = 4;
const requestsPerTurn = 500;
const warmUpRequests = 300;
const maxMillisecondsPerTurn = 15_000;
const modernVersion = "2026-07-28";
const peerVersion = "2025-11-25";

interface ServerProcess {
  urls: Record<string, string>;
  sample(): Promise<{ cpuMicros: number; upstreamReads: number }>;
  stop(): Promise<void>;
}

async function startServerProcess(mode: "jobtasks" | "peer", demoApiUrl: string): Promise<ServerProcess> {
  // BENCH_SERVER_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/profiles" profiles both server processes.
  const extraFlags = process.env["BENCH_SERVER_NODE_FLAGS"]?.split(" ").filter(Boolean) ?? [];
  const child = fork(fileURLToPath(import.meta.url), ["--serve", mode, demoApiUrl], {
    execArgv: [...process.execArgv, ...extraFlags],
  });
  const [message] = (await once(child, "message")) as [ComparisonServerMessage];
  if (message.type !== "listening") throw new Error(`the ${mode} server did not start`);
  return {
    urls: message.urls,
    sample: async () => {
      child.send({ type: "cpu" } satisfies ComparisonParentMessage);
      const [reply] = (await once(child, "message")) as [ComparisonServerMessage];
      if (reply.type !== "cpu") throw new Error(`unexpected message from the ${mode} server`);
      return reply;
    },
    stop: async () => {
      const exited = once(child, "exit");
      child.send({ type: "stop" } satisfies ComparisonParentMessage);
      await exited;
    },
  };
}

const modernMeta = {
  "io.modelcontextprotocol/protocolVersion": modernVersion,
  "io.modelcontextprotocol/clientInfo": { name: "jobtasks-bench", version: "0.0.0" },
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};

/** One kind of request against one endpoint: how to send it and what a good answer looks like. */
interface Case {
  name: string;
  server: ServerProcess;
  url: string;
  request(id: number): { payload: string; headers: Record<string, string> };
  ok(result: Record<string, unknown> | undefined): boolean;
}

function jobtasksRequest(method: string, params: Record<string, unknown>, name?: string) {
  return (id: number) => ({
    payload: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: modernMeta } }),
    headers: {
      "mcp-protocol-version": modernVersion,
      "mcp-method": method,
      ...(name === undefined ? {} : { "mcp-name": name }),
    },
  });
}

function peerRequest(method: string, params?: Record<string, unknown>) {
  return (id: number) => ({
    payload: JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) }),
    headers: { "mcp-protocol-version": peerVersion },
  });
}

async function call(client: RpcClient, request: { payload: string; headers: Record<string, string> }) {
  const answer = await client.post(request.payload, request.headers);
  return {
    status: answer.status,
    result: answer.status === 200 ? resultOf(answer.body) : undefined,
    body: answer.body,
  };
}

interface Tally {
  cpuMicros: number;
  requests: number;
  failures: number;
  latenciesMs: number[];
}

export async function runPeerComparison(): Promise<void> {
  const demoApi = await startDemoApi({ port: 0 });
  const jobtasks = await startServerProcess("jobtasks", demoApi.url);
  const peer = await startServerProcess("peer", demoApi.url);
  try {
    // A job long enough to stay working for the whole run, on each side.
    const setup = createRpcClient(jobtasks.urls["fastPath"]!, 1);
    const started = await call(
      setup,
      jobtasksRequest(
        "tools/call",
        { name: "demo_pipeline", arguments: { steps: 50, stepMs: 600_000 } },
        "demo_pipeline",
      )(1),
    );
    setup.close();
    const taskId = started.result?.["taskId"];
    if (typeof taskId !== "string") throw new Error(`jobtasks did not create a task: ${started.body.slice(0, 300)}`);
    const peerSetup = createRpcClient(peer.urls["peer"]!, 1);
    const peerStarted = await call(
      peerSetup,
      peerRequest("tools/call", {
        name: "demo_pipeline",
        arguments: { steps: 50, stepMs: 600_000 },
        task: { ttl: 3_600_000 },
      })(1),
    );
    peerSetup.close();
    const peerTaskId = (peerStarted.result?.["task"] as { taskId?: unknown } | undefined)?.taskId;
    if (typeof peerTaskId !== "string")
      throw new Error(`the peer did not create a task: ${peerStarted.body.slice(0, 300)}`);

    const working = (result: Record<string, unknown> | undefined) => result?.["status"] === "working";
    const cases: Case[] = [
      {
        name: "jobtasks tasks/get, SDK path, no id memo (before)",
        server: jobtasks,
        url: jobtasks.urls["sdkPath"]!,
        request: jobtasksRequest("tasks/get", { taskId }, taskId),
        ok: working,
      },
      {
        name: "jobtasks tasks/get, SDK path + id memo",
        server: jobtasks,
        url: jobtasks.urls["sdkPathMemo"]!,
        request: jobtasksRequest("tasks/get", { taskId }, taskId),
        ok: working,
      },
      {
        name: "jobtasks tasks/get, fast path + id memo (now)",
        server: jobtasks,
        url: jobtasks.urls["fastPath"]!,
        request: jobtasksRequest("tasks/get", { taskId }, taskId),
        ok: working,
      },
      {
        name: "jobtasks server/discover (its cheapest request)",
        server: jobtasks,
        url: jobtasks.urls["fastPath"]!,
        request: jobtasksRequest("server/discover", {}),
        ok: (result) => Array.isArray(result?.["supportedVersions"]),
      },
      {
        name: "SDK 1.x peer tasks/get",
        server: peer,
        url: peer.urls["peer"]!,
        request: peerRequest("tasks/get", { taskId: peerTaskId }),
        ok: working,
      },
      {
        name: "SDK 1.x peer ping (its cheapest request)",
        server: peer,
        url: peer.urls["peer"]!,
        request: peerRequest("ping"),
        ok: (result) => result !== undefined,
      },
    ];
    // BENCH_ONLY="fast path" keeps the cases whose name contains it: one step at a time, for a CPU profile.
    const only = process.env["BENCH_ONLY"];
    if (only) cases.splice(0, cases.length, ...cases.filter((each) => each.name.includes(only)));
    const clients = cases.map((each) => createRpcClient(each.url, concurrency));
    const tallies: Tally[] = cases.map(() => ({ cpuMicros: 0, requests: 0, failures: 0, latenciesMs: [] }));
    const readsBefore = {
      jobtasks: (await jobtasks.sample()).upstreamReads,
      peer: (await peer.sample()).upstreamReads,
    };
    const runStarted = Date.now();

    for (const [index, each] of cases.entries()) {
      // Warm-up: JIT, sockets, caches. Not counted.
      await measureConcurrent({ maxOperations: warmUpRequests, maxMilliseconds: 3_000 }, concurrency, (id) =>
        call(clients[index]!, each.request(id)),
      );
    }
    for (let round = 0; round < rounds; round += 1) {
      // Each round starts at another case, so that no case always follows the same neighbour.
      for (let turn = 0; turn < cases.length; turn += 1) {
        const index = (round + turn) % cases.length;
        const each = cases[index]!;
        const tally = tallies[index]!;
        const before = await each.server.sample();
        const result = await measureConcurrent(
          { maxOperations: requestsPerTurn, maxMilliseconds: maxMillisecondsPerTurn },
          concurrency,
          async (id) => {
            const answer = await call(clients[index]!, each.request(id + 10));
            if (!each.ok(answer.result)) tally.failures += 1;
          },
        );
        const after = await each.server.sample();
        tally.cpuMicros += after.cpuMicros - before.cpuMicros;
        tally.requests += result.operations;
        tally.latenciesMs.push(...result.latenciesMs);
      }
    }
    const seconds = (Date.now() - runStarted) / 1000;
    const readsAfter = { jobtasks: (await jobtasks.sample()).upstreamReads, peer: (await peer.sample()).upstreamReads };
    clients.forEach((client) => client.close());

    const cpuEach = tallies.map((tally) => tally.cpuMicros / tally.requests);
    const peerGet = only ? cpuEach[0]! : cpuEach[4]!;
    heading(
      `Server CPU per request against the SDK 1.x tasks peer (concurrency ${concurrency}, ${rounds} rounds of ${formatNumber(requestsPerTurn)} requests per case, in turns)`,
    );
    console.log(
      markdownTable(
        ["case", "requests", "server CPU µs/request", "vs peer tasks/get", "p50 ms", "p95 ms", "failures"],
        cases.map((each, index) => [
          each.name,
          tallies[index]!.requests,
          formatNumber(cpuEach[index]!),
          `${formatNumber(cpuEach[index]! / peerGet, 2)}×`,
          formatNumber(percentile(tallies[index]!.latenciesMs, 50), 2),
          formatNumber(percentile(tallies[index]!.latenciesMs, 95), 2),
          tallies[index]!.failures,
        ]),
      ),
    );
    if (only) return;
    const ratio = (a: number, b: number) => `${formatNumber(cpuEach[a]! / cpuEach[b]!, 2)}×`;
    console.log(
      "\n" +
        markdownTable(
          ["ratio (server CPU per request, this run)", "value", "target"],
          [
            ["jobtasks tasks/get (now) / peer tasks/get", ratio(2, 4), "≤ 0.5×"],
            ["jobtasks tasks/get (now) / jobtasks server/discover", ratio(2, 3), "≤ 1.1×"],
            ["jobtasks tasks/get (before) / peer tasks/get", ratio(0, 4), ""],
            ["saved by the id memo: SDK path + memo / SDK path", ratio(1, 0), ""],
            ["saved by the fast path: fast path / SDK path + memo", ratio(2, 1), ""],
            ["jobtasks server/discover / peer ping", ratio(3, 5), ""],
          ],
        ),
    );
    console.log(
      `\nUpstream (demo API) reads during the ${formatNumber(seconds, 1)} s of measuring, one job each side: jobtasks ` +
        `${readsAfter.jobtasks - readsBefore.jobtasks} (snapshot cache, 1 s), peer ${readsAfter.peer - readsBefore.peer} (its poller, every 1 s).`,
    );
  } finally {
    await jobtasks.stop();
    await peer.stop();
    await demoApi.close();
  }
}

if (process.argv[2] === "--serve") {
  await serveForComparison(process.argv[3] as "jobtasks" | "peer", process.argv[4]!);
} else if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(describeMachine());
  await runPeerComparison();
}
