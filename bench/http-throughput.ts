import { fork, type ChildProcess } from "node:child_process";
import { Agent, request } from "node:http";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describeMachine, formatNumber, heading, markdownTable, measureConcurrent, percentile } from "./support/measure.js";
import { serveForBenchmark, type ParentMessage, type ServerProcessMessage } from "./support/http-server-process.js";

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

interface RpcClient {
  call(method: string, params: Record<string, unknown>, name: string): Promise<{ status: number; body: string }>;
  close(): void;
}

/** A minimal keep-alive JSON-RPC client on node:http: cheaper than fetch, so more CPU is left to the server. */
function createRpcClient(url: string, maxSockets: number): RpcClient {
  const agent = new Agent({ keepAlive: true, maxSockets });
  const target = new URL(url);
  let nextId = 1;
  return {
    call(method, params, name) {
      const payload = JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: envelope() } });
      return new Promise((resolve, reject) => {
        const outgoing = request(
          {
            agent,
            host: target.hostname,
            port: target.port,
            path: target.pathname,
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              "content-length": Buffer.byteLength(payload),
              "mcp-protocol-version": protocolVersion,
              "mcp-method": method,
              "mcp-name": name,
            },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on("data", (chunk: Buffer) => chunks.push(chunk));
            response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
            response.on("error", reject);
          },
        );
        outgoing.on("error", reject);
        outgoing.end(payload);
      });
    },
    close: () => agent.destroy(),
  };
}

/** The JSON-RPC result of a body that is either JSON or a short SSE stream. */
function resultOf(body: string): Record<string, unknown> | undefined {
  const json = body.trimStart().startsWith("{") ? body : body.split("\n").filter((line) => line.startsWith("data:")).at(-1)?.slice(5);
  if (json === undefined) return undefined;
  return (JSON.parse(json) as { result?: Record<string, unknown> }).result;
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
    const setup = createRpcClient(server.url, 1);
    const created = await setup.call("tools/call", { name: "bench_job", arguments: {} }, "bench_job");
    const taskId = resultOf(created.body)?.["taskId"];
    setup.close();
    if (typeof taskId !== "string") throw new Error(`tools/call did not create a task: HTTP ${created.status} ${created.body.slice(0, 300)}`);

    for (const concurrency of concurrencyLevels) {
      const client = createRpcClient(server.url, concurrency);
      let failures = 0;
      const get = async () => {
        const response = await client.call("tasks/get", { taskId }, taskId);
        if (response.status !== 200 || resultOf(response.body)?.["status"] !== "working") failures += 1;
      };
      // Warm-up: JIT, sockets, caches. Not counted.
      await measureConcurrent({ maxOperations: 300, maxMilliseconds: 3_000 }, concurrency, get);
      failures = 0;
      const before = await server.askCpu();
      const result = await measureConcurrent({ maxOperations: requestsPerLevel, maxMilliseconds: maxMillisecondsPerLevel }, concurrency, get);
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
  heading(`tasks/get over loopback HTTP (${formatNumber(requestsPerLevel)} requests per level, server in its own process)`);
  const rows = [...(await measureServer(1000)), ...(await measureServer(0))];
  console.log(
    markdownTable(
      ["snapshot cache", "concurrency", "requests", "requests/s (wall)", "p50 ms", "p95 ms", "p99 ms", "server CPU µs/request", "requests per server CPU-second", "upstream reads/request", "failures"],
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
