import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import {
  describeMachine,
  formatNumber,
  heading,
  markdownTable,
  measureConcurrent,
  percentile,
} from "./support/measure.js";
import { serveForBenchmark, type ParentMessage, type ServerProcessMessage } from "./support/http-server-process.js";
import { createRpcClient, resultOf, type RpcAnswer } from "./support/rpc-client.js";

/**
 * End to end over loopback: how many tasks/get can one server process answer, and how fast, through the
 * whole stack (Node HTTP, the MCP SDK's Streamable HTTP handler, a fresh SDK Server per request, the task
 * service)? The server runs in a child process on 127.0.0.1 with an adapter that answers from memory, so
 * the numbers are the server's own ceiling; real upstream reads add their latency on cache misses.
 *
 * Run: node --import tsx bench/http-throughput.ts
 */

const requestsPerLevel = 2_000;
const maxMillisecondsPerLevel = 20_000;
const concurrencyLevels = [1, 8, 32];
const protocolVersion = "2026-07-28";

function envelope() {
  return {
    "io.modelcontextprotocol/protocolVersion": protocolVersion,
    "io.modelcontextprotocol/clientInfo": { name: "jobtasks-bench", version: "0.0.0" },
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
  };
}

interface McpCaller {
  call(method: string, params: Record<string, unknown>, name: string): Promise<RpcAnswer>;
  close(): void;
}

/** The shared keep-alive client, framing each call with the 2026-07-28 envelope and routing headers. */
function createMcpCaller(url: string, maxSockets: number): McpCaller {
  const client = createRpcClient(url, maxSockets);
  let nextId = 1;
  return {
    call: (method, params, name) =>
      client.post(JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: envelope() } }), {
        "mcp-protocol-version": protocolVersion,
        "mcp-method": method,
        "mcp-name": name,
      }),
    close: () => client.close(),
  };
}

async function startServerProcess(snapshotCacheMs: number) {
  // BENCH_SERVER_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/profiles" profiles the server process.
  const extraFlags = process.env["BENCH_SERVER_NODE_FLAGS"]?.split(" ").filter(Boolean) ?? [];
  const child = fork(fileURLToPath(import.meta.url), ["--serve", String(snapshotCacheMs)], {
    execArgv: [...process.execArgv, ...extraFlags],
  });
  const [message] = (await once(child, "message")) as [ServerProcessMessage];
  if (message.type !== "listening") throw new Error("the benchmark server did not start");
  const askCpu = async () => {
    child.send({ type: "cpu" } satisfies ParentMessage);
    const [reply] = (await once(child, "message")) as [ServerProcessMessage];
    if (reply.type !== "cpu") throw new Error("unexpected message from the benchmark server");
    return { cpuMicros: reply.userMicros + reply.systemMicros, upstreamReads: reply.upstreamReads };
  };
  const stop = async (process: ChildProcess) => {
    const exited = once(process, "exit");
    process.send({ type: "stop" } satisfies ParentMessage);
    await exited;
  };
  return { url: message.url, askCpu, stop: () => stop(child) };
}

async function measureServer(snapshotCacheMs: number): Promise<Array<Array<string | number>>> {
  const server = await startServerProcess(snapshotCacheMs);
  const rows: Array<Array<string | number>> = [];
  try {
    const setup = createMcpCaller(server.url, 1);
    const created = await setup.call("tools/call", { name: "bench_job", arguments: {} }, "bench_job");
    const taskId = resultOf(created.body)?.["taskId"];
    setup.close();
    if (typeof taskId !== "string")
      throw new Error(`tools/call did not create a task: HTTP ${created.status} ${created.body.slice(0, 300)}`);

    for (const concurrency of concurrencyLevels) {
      const client = createMcpCaller(server.url, concurrency);
      let failures = 0;
      const get = async () => {
        const response = await client.call("tasks/get", { taskId }, taskId);
        if (response.status !== 200 || resultOf(response.body)?.["status"] !== "working") failures += 1;
      };
      // Warm-up: JIT, sockets, caches. Not counted.
      await measureConcurrent({ maxOperations: 300, maxMilliseconds: 3_000 }, concurrency, get);
      failures = 0;
      const before = await server.askCpu();
      const result = await measureConcurrent(
        { maxOperations: requestsPerLevel, maxMilliseconds: maxMillisecondsPerLevel },
        concurrency,
        get,
      );
      const after = await server.askCpu();
      client.close();
      const serverCpuMicrosEach = (after.cpuMicros - before.cpuMicros) / result.operations;
      rows.push([
        snapshotCacheMs === 0 ? "off" : `${snapshotCacheMs} ms`,
        concurrency,
        result.operations,
        formatNumber(result.perSecond),
        formatNumber(percentile(result.latenciesMs, 50), 2),
        formatNumber(percentile(result.latenciesMs, 95), 2),
        formatNumber(percentile(result.latenciesMs, 99), 2),
        formatNumber(serverCpuMicrosEach),
        formatNumber(1_000_000 / serverCpuMicrosEach),
        formatNumber((after.upstreamReads - before.upstreamReads) / result.operations, 2),
        failures,
      ]);
    }
  } finally {
    await server.stop();
  }
  return rows;
}

export async function runHttpThroughput(): Promise<void> {
  heading(
    `tasks/get over loopback HTTP (${formatNumber(requestsPerLevel)} requests per level, server in its own process)`,
  );
  const rows = [...(await measureServer(1000)), ...(await measureServer(0))];
  console.log(
    markdownTable(
      [
        "snapshot cache",
        "concurrency",
        "requests",
        "requests/s (wall)",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "server CPU µs/request",
        "requests per server CPU-second",
        "upstream reads/request",
        "failures",
      ],
      rows,
    ),
  );
}

if (process.argv[2] === "--serve") {
  await serveForBenchmark(Number(process.argv[3]));
} else if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(describeMachine());
  await runHttpThroughput();
}
