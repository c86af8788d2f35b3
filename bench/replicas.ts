import { fork } from "node:child_process";
import { once, setMaxListeners } from "node:events";
import { fileURLToPath } from "node:url";
import { UpstreamError, type JobEventsV1 } from "@jobtasks/core";
import { TaskIdSealer } from "../packages/server/src/task-id.js";
import { TaskService } from "../packages/server/src/task-service.js";
import type { CreateTaskResult } from "../packages/server/src/task-shape.js";
import { EventReceiver } from "../packages/server/src/event-receiver.js";
import { connectRedisSharedState } from "../packages/server/src/connect-shared-state.js";
import { noSharedState, type SharedState } from "../packages/server/src/shared-state.js";
import { capturingLogger, type LogEntry } from "../packages/server/src/test-support/capturing-logger.js";
import {
  approvalRequest,
  createScriptedAdapter,
  inputRequiredSnapshot,
  workingSnapshot,
  type ScriptedAdapter,
  type ScriptedJobRef,
} from "../test/support/scripted-adapter.js";
import { startTestRedis, type TestRedis } from "../test/support/redis-server.js";
import {
  describeMachine,
  formatNumber,
  heading,
  markdownTable,
  measureConcurrent,
  percentile,
} from "./support/measure.js";
import { serveForBenchmark, type ParentMessage, type ServerProcessMessage } from "./support/http-server-process.js";
import { createRpcClient, resultOf } from "./support/rpc-client.js";

/**
 * Replicas that act as one (issue 24): three replicas sharing a real redis-server (Debian's, started here
 * on a free loopback port with nothing saved) against one upstream that counts every call. Parts 1 to 5 run
 * the replicas in this process, each TaskService with its own Redis connections as three processes would
 * have (they share this process's event loop, so latencies include each other's work); part 6 runs one
 * HTTP server in its own process, with Redis and without, and reads its CPU time.
 *
 * Run: node --import tsx bench/replicas.ts   (after pnpm build)
 */

const secret = "bench-replicas-secret-0123456789abcdefghij";
const callerSignal = new AbortController().signal;
// Every poll of every simulated client shares this one signal; each listens to it while it waits.
setMaxListeners(0, callerSignal);
const caller = { principal: "bench-agent", signal: callerSignal, tasksDeclared: true };
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

let redis: TestRedis;
let prefixes = 0;

interface Replicas {
  services: TaskService[];
  states: SharedState[];
  logs: LogEntry[][];
  upstream: ScriptedAdapter;
  close(): Promise<void>;
}

async function startReplicas(count: number, shared: boolean, events?: JobEventsV1<ScriptedJobRef>): Promise<Replicas> {
  const upstream = createScriptedAdapter({ pollIntervalMs: 50 });
  const adapter = events ? { ...upstream.adapter, events } : upstream.adapter;
  const prefix = `bench-${process.pid}-${++prefixes}`;
  const services: TaskService[] = [];
  const states: SharedState[] = [];
  const logs: LogEntry[][] = [];
  for (let index = 0; index < count; index++) {
    const { logger, entries } = capturingLogger();
    logger.level = process.env["BENCH_LOG_LEVEL"] ?? "warn";
    // BENCH_REDIS_TIMEOUT_MS: commandTimeoutMs for the replicas (default the production 50 ms).
    const commandTimeoutMs = Number(process.env["BENCH_REDIS_TIMEOUT_MS"] ?? 50);
    const state = shared
      ? await connectRedisSharedState({ url: redis.url, keyPrefix: prefix, logger, commandTimeoutMs })
      : noSharedState;
    states.push(state);
    logs.push(entries);
    services.push(
      new TaskService({
        adapters: [{ name: "scripted", adapter }],
        sealer: new TaskIdSealer({ secret }),
        logger,
        snapshotCacheMs: 1000,
        immediateRetries: 0,
        sharedState: state,
      }),
    );
  }
  return {
    services,
    states,
    logs,
    upstream,
    close: async () => void (await Promise.all(states.map((s) => s.close()))),
  };
}

async function createTask(service: TaskService, startAs: "working" | "input_required" = "working"): Promise<string> {
  return ((await service.callTool("scripted_job", { startAs }, caller)) as CreateTaskResult).taskId;
}

/** 1. 50 clients poll one job for `seconds`, each every 250 ms, spread round robin over the replicas. */
async function readsPerWindow(
  count: number,
  shared: boolean,
  seconds: number,
): Promise<{ reads: number; warnings: number; late: number }> {
  const replicas = await startReplicas(count, shared);
  try {
    const taskId = await createTask(replicas.services[0]!);
    await sleep(1100);
    const before = replicas.upstream.calls.getStatus;
    const until = Date.now() + seconds * 1000;
    let turn = 0;
    await Promise.all(
      Array.from({ length: 50 }, async (_, client) => {
        await sleep(client * 2);
        while (Date.now() < until) {
          await replicas.services[turn++ % count]!.getTask(taskId, caller);
          await sleep(250);
        }
      }),
    );
    return {
      reads: (replicas.upstream.calls.getStatus - before) / seconds,
      warnings: replicas.logs.flat().filter((entry) => entry.level === 40).length,
      late: replicas.logs.flat().filter((entry) => entry.msg.includes("too late")).length,
    };
  } finally {
    await replicas.close();
  }
}

/** 2. 1,000 concurrent tasks/update: 10 for each of 100 questions (one per job), spread over the replicas. */
async function answersDelivered(shared: boolean): Promise<number> {
  const replicas = await startReplicas(3, shared);
  try {
    const tasks: string[] = [];
    for (let index = 0; index < 100; index++)
      tasks.push(await createTask(replicas.services[index % 3]!, "input_required"));
    for (const job of replicas.upstream.jobs.values())
      replicas.upstream.update(job, inputRequiredSnapshot({ approve: approvalRequest() }));
    let turn = 0;
    await Promise.all(
      tasks.flatMap((taskId) =>
        Array.from({ length: 10 }, () =>
          replicas.services[turn++ % 3]!.updateTask(
            taskId,
            { approve: { action: "accept", content: { approve: true } } },
            caller,
          ),
        ),
      ),
    );
    return [...replicas.upstream.jobs.values()].reduce((sum, job) => sum + job.responses.length, 0);
  } finally {
    await replicas.close();
  }
}

/** 3. A Retry-After of 10 s on replica A; then 30 clients poll two jobs of the instance on every replica. */
async function requestsDuringHold(shared: boolean): Promise<{ during: number; polls: number; after: number }> {
  const replicas = await startReplicas(3, shared);
  try {
    const first = await createTask(replicas.services[0]!);
    const second = await createTask(replicas.services[0]!);
    const job = [...replicas.upstream.jobs.values()][0]!;
    await sleep(1100);
    replicas.upstream.failReads(job, new UpstreamError("rate limited", { httpStatus: 429, retryAfterMs: 10_000 }));
    await replicas.services[0]!.getTask(first, caller);
    replicas.upstream.failReads(job, undefined);
    const heldUntil = Date.now() + 9_900;
    const before = replicas.upstream.calls.getStatus;
    let polls = 0;
    let turn = 0;
    await Promise.all(
      Array.from({ length: 30 }, async (_, client) => {
        while (Date.now() < heldUntil) {
          await replicas.services[turn++ % 3]!.getTask(client % 2 === 0 ? first : second, caller);
          polls += 1;
          await sleep(100);
        }
      }),
    );
    const during = replicas.upstream.calls.getStatus - before;
    await sleep(300);
    await Promise.all(replicas.services.map((service) => service.getTask(second, caller)));
    return { during, polls, after: replicas.upstream.calls.getStatus - before - during };
  } finally {
    await replicas.close();
  }
}

/** 4. An event received by replica A, until a wait on replica C wakes. */
async function fanOutLatencies(deliveries: number): Promise<number[]> {
  let next: { ref: ScriptedJobRef; message: string } | undefined;
  const events: JobEventsV1<ScriptedJobRef> = {
    doVerifyDelivery: async (delivery) => ({ verified: true, deliveryId: delivery.headers["x-delivery"]! }),
    doReadDelivery: async () => ({
      event: "job",
      jobs: [{ ref: next!.ref, snapshot: { ...workingSnapshot(next!.message), updatedAt: new Date().toISOString() } }],
    }),
  };
  const replicas = await startReplicas(3, true, events);
  try {
    const [a, , c] = replicas.services as [TaskService, TaskService, TaskService];
    const taskId = await createTask(a);
    const ref = { jobId: replicas.upstream.onlyJob().jobId };
    const receiver = new EventReceiver({ service: a, logger: capturingLogger().logger });
    const latencies: number[] = [];
    for (let index = 0; index < deliveries; index++) {
      const stop = new AbortController();
      const woken = c.whenChanged(taskId, caller.principal, stop.signal).then(() => performance.now());
      next = { ref, message: `step ${index}` };
      const sentAt = performance.now();
      await receiver.receive("scripted", { headers: { "x-delivery": `delivery-${index}` }, body: new Uint8Array() });
      const wokenAt = await Promise.race([woken, sleep(2000).then(() => Number.POSITIVE_INFINITY)]);
      stop.abort();
      latencies.push(wokenAt - sentAt);
      await sleep(5);
    }
    return latencies;
  } finally {
    await replicas.close();
  }
}

/** 5. Redis killed during a polling load and started again: failures, warnings, and when sharing is back. */
async function redisOutage(loadSeconds: number) {
  const replicas = await startReplicas(3, true);
  try {
    const tasks: string[] = [];
    for (let index = 0; index < 5; index++) tasks.push(await createTask(replicas.services[index % 3]!));
    let requests = 0;
    let failures = 0;
    let turn = 0;
    const until = Date.now() + loadSeconds * 1000;
    const load = Promise.all(
      Array.from({ length: 30 }, async (_, client) => {
        while (Date.now() < until) {
          try {
            await replicas.services[turn++ % 3]!.getTask(tasks[client % tasks.length]!, caller);
          } catch {
            failures += 1;
          }
          requests += 1;
          await sleep(50);
        }
      }),
    );
    await sleep((loadSeconds * 1000) / 4);
    await redis.stop();
    await sleep((loadSeconds * 1000) / 4);
    await redis.start();
    const restartedAt = performance.now();
    while (!replicas.states.every((state) => state.snapshots.active) && performance.now() - restartedAt < 30_000)
      await sleep(20);
    const backAfterMs = performance.now() - restartedAt;
    await load;
    const warnings = replicas.logs.map((entries) => entries.filter((entry) => entry.level === 40).length);
    return { requests, failures, warnings, backAfterMs };
  } finally {
    await replicas.close();
  }
}

/** One HTTP server process (`--serve`): its URL, its CPU time and upstream reads so far, and a stop. */
async function startServerProcess(options: { redisUrl?: string; keyPrefix?: string; secret?: string } = {}) {
  // Positional, "" for none: Redis URL, key prefix, secret.
  const args = [options.redisUrl ?? "", options.keyPrefix ?? "", options.secret ?? ""];
  const child = fork(fileURLToPath(import.meta.url), ["--serve", ...args], { execArgv: process.execArgv });
  const [message] = (await once(child, "message")) as [ServerProcessMessage];
  if (message.type !== "listening") throw new Error("the benchmark server did not start");
  return {
    url: message.url,
    askCpu: async () => {
      child.send({ type: "cpu" } satisfies ParentMessage);
      const [reply] = (await once(child, "message")) as [ServerProcessMessage];
      if (reply.type !== "cpu") throw new Error("unexpected message from the benchmark server");
      return { cpuMicros: reply.userMicros + reply.systemMicros, upstreamReads: reply.upstreamReads };
    },
    stop: async () => {
      const exited = once(child, "exit");
      child.send({ type: "stop" } satisfies ParentMessage);
      await exited;
    },
  };
}

/** JSON-RPC over keep-alive HTTP with the 2026-07-28 envelope and routing headers. */
function mcpCaller(url: string, maxSockets: number) {
  const client = createRpcClient(url, maxSockets);
  const envelope = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "jobtasks-bench", version: "0.0.0" },
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
  };
  let id = 1;
  return {
    call: (method: string, params: Record<string, unknown>, name: string) =>
      client.post(JSON.stringify({ jsonrpc: "2.0", id: id++, method, params: { ...params, _meta: envelope } }), {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        "mcp-name": name,
      }),
    close: () => client.close(),
  };
}

/** 1b. As 1, with each replica an HTTP server in its own process (as deployed), clients over HTTP. */
async function readsPerWindowInProcesses(count: number, shared: boolean, seconds: number): Promise<number> {
  const keyPrefix = `bench-processes-${process.pid}-${++prefixes}`;
  const servers = await Promise.all(
    Array.from({ length: count }, () =>
      startServerProcess(shared ? { redisUrl: redis.url, keyPrefix, secret } : { secret }),
    ),
  );
  const callers = servers.map((server) => mcpCaller(server.url, 50));
  try {
    const created = await callers[0]!.call("tools/call", { name: "bench_job", arguments: {} }, "bench_job");
    const taskId = resultOf(created.body)?.["taskId"] as string;
    await sleep(1100);
    const readsOf = async () =>
      (await Promise.all(servers.map((server) => server.askCpu()))).reduce((sum, cpu) => sum + cpu.upstreamReads, 0);
    const before = await readsOf();
    const until = Date.now() + seconds * 1000;
    let turn = 0;
    await Promise.all(
      Array.from({ length: 50 }, async (_, client) => {
        await sleep(client * 5);
        while (Date.now() < until) {
          const response = await callers[turn++ % count]!.call("tasks/get", { taskId }, taskId);
          if (resultOf(response.body)?.["status"] !== "working")
            throw new Error(`tasks/get answered HTTP ${response.status} ${response.body.slice(0, 200)}`);
          await sleep(250);
        }
      }),
    );
    return ((await readsOf()) - before) / seconds;
  } finally {
    for (const caller of callers) caller.close();
    await Promise.all(servers.map((server) => server.stop()));
  }
}

/** 6. One HTTP server process, tasks/get at 32 concurrent clients; its CPU time per request. */
async function serverCpuPerRequest(redisUrl: string | undefined, requests: number): Promise<number> {
  const server = await startServerProcess(redisUrl ? { redisUrl } : {});
  const caller = mcpCaller(server.url, 32);
  try {
    const created = await caller.call("tools/call", { name: "bench_job", arguments: {} }, "bench_job");
    const taskId = resultOf(created.body)?.["taskId"] as string;
    const get = async () => {
      const response = await caller.call("tasks/get", { taskId }, taskId);
      if (response.status !== 200) throw new Error(`tasks/get answered HTTP ${response.status}`);
    };
    await measureConcurrent({ maxOperations: 500, maxMilliseconds: 5_000 }, 32, get);
    const before = await server.askCpu();
    const result = await measureConcurrent({ maxOperations: requests, maxMilliseconds: 30_000 }, 32, get);
    const after = await server.askCpu();
    return (after.cpuMicros - before.cpuMicros) / result.operations;
  } finally {
    caller.close();
    await server.stop();
  }
}

/** BENCH_ONLY=1,4 runs only those parts. */
const only = process.env["BENCH_ONLY"]?.split(",");
const runs = (part: string) => only === undefined || only.includes(part);

async function main(): Promise<void> {
  console.log(describeMachine());
  redis = await startTestRedis();
  const startedAt = performance.now();
  try {
    if (runs("1")) {
      heading("1. Upstream reads per job per 1 s window: 50 clients poll one job every 250 ms for 6 s");
      const one = await readsPerWindow(1, false, 6);
      const threeShared = await readsPerWindow(3, true, 6);
      const threeAlone = await readsPerWindow(3, false, 6);
      console.log(
        markdownTable(
          ["replicas", "shared state", "reads per job per window", "÷ 1 replica", "Redis fallbacks (warnings)"],
          [
            [1, "none", formatNumber(one.reads, 2), "1.00", "-"],
            [
              3,
              "Redis",
              formatNumber(threeShared.reads, 2),
              formatNumber(threeShared.reads / one.reads, 2),
              `${threeShared.warnings} (late answers: ${threeShared.late})`,
            ],
            [
              3,
              "none (round robin)",
              formatNumber(threeAlone.reads, 2),
              formatNumber(threeAlone.reads / one.reads, 2),
              "-",
            ],
          ],
        ),
      );
    }

    if (runs("1")) {
      heading("1b. The same, each replica an HTTP server in its own process (as deployed), clients over loopback HTTP");
      const oneProcess = await readsPerWindowInProcesses(1, false, 6);
      const threeSharedProcesses = await readsPerWindowInProcesses(3, true, 6);
      const threeAloneProcesses = await readsPerWindowInProcesses(3, false, 6);
      console.log(
        markdownTable(
          ["replicas", "shared state", "reads per job per window", "÷ 1 replica"],
          [
            [1, "none", formatNumber(oneProcess, 2), "1.00"],
            [3, "Redis", formatNumber(threeSharedProcesses, 2), formatNumber(threeSharedProcesses / oneProcess, 2)],
            [
              3,
              "none (round robin)",
              formatNumber(threeAloneProcesses, 2),
              formatNumber(threeAloneProcesses / oneProcess, 2),
            ],
          ],
        ),
      );
    }

    if (runs("2")) {
      heading("2. 1,000 concurrent tasks/update to 100 questions over 3 replicas: answers that reach the upstream");
      console.log(
        markdownTable(
          ["shared state", "answers upstream"],
          [
            ["Redis", await answersDelivered(true)],
            ["none", await answersDelivered(false)],
          ],
        ),
      );

      heading(
        "3. A Retry-After of 10 s on one replica: upstream requests from any replica during it (30 clients, 2 jobs)",
      );
      const heldShared = await requestsDuringHold(true);
      const heldAlone = await requestsDuringHold(false);
      console.log(
        markdownTable(
          ["shared state", "polls during the hold", "upstream requests during the hold", "requests right after it"],
          [
            ["Redis", heldShared.polls, heldShared.during, heldShared.after],
            ["none", heldAlone.polls, heldAlone.during, heldAlone.after],
          ],
        ),
      );
    }

    if (runs("4")) {
      heading("4. Push fan-out: an event received by replica A, until a wait on replica C wakes (200 events)");
      const latencies = await fanOutLatencies(200);
      console.log(
        markdownTable(
          ["events", "woken within 2 s", "p50 ms", "p99 ms", "max ms"],
          [
            [
              latencies.length,
              latencies.filter(Number.isFinite).length,
              formatNumber(percentile(latencies, 50), 1),
              formatNumber(percentile(latencies, 99), 1),
              formatNumber(Math.max(...latencies), 1),
            ],
          ],
        ),
      );
    }

    if (runs("5")) {
      // BENCH_OUTAGE_SECONDS: the load's length (the target's 60 s; 20 by default, to keep the run short).
      const loadSeconds = Number(process.env["BENCH_OUTAGE_SECONDS"] ?? 20);
      heading(
        `5. Redis killed during a ${loadSeconds} s polling load (at ${loadSeconds / 4} s) and started again (at ${loadSeconds / 2} s)`,
      );
      const outage = await redisOutage(loadSeconds);
      console.log(
        markdownTable(
          ["tasks/get", "failed", "warnings per replica", "sharing back after the restart"],
          [[outage.requests, outage.failures, outage.warnings.join(", "), `${formatNumber(outage.backAfterMs)} ms`]],
        ),
      );
    }

    if (runs("6")) {
      heading("6. tasks/get server CPU at 32 concurrent clients, one server process (4,000 requests, in turns)");
      const rounds: Array<{ without: number; with: number }> = [];
      for (let round = 0; round < 2; round++)
        rounds.push({
          without: await serverCpuPerRequest(undefined, 4000),
          with: await serverCpuPerRequest(redis.url, 4000),
        });
      const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
      const without = median(rounds.map((round) => round.without));
      const withRedis = median(rounds.map((round) => round.with));
      console.log(
        markdownTable(
          ["shared state", "server CPU µs/request (each round)", "÷ without"],
          [
            ["none", rounds.map((round) => formatNumber(round.without)).join(", "), "1.00"],
            ["Redis", rounds.map((round) => formatNumber(round.with)).join(", "), formatNumber(withRedis / without, 2)],
          ],
        ),
      );
    }

    console.log(`\nTook ${formatNumber((performance.now() - startedAt) / 1000)} s.`);
  } finally {
    await redis.stop();
  }
}

if (process.argv[2] === "--serve") {
  const [redisUrl, keyPrefix, sharedSecret] = process.argv.slice(3);
  await serveForBenchmark(1000, {
    ...(redisUrl ? { redisUrl } : {}),
    ...(keyPrefix ? { keyPrefix } : {}),
    ...(sharedSecret ? { secret: sharedSecret } : {}),
    ...(process.env["BENCH_REDIS_TIMEOUT_MS"]
      ? { commandTimeoutMs: Number(process.env["BENCH_REDIS_TIMEOUT_MS"]) }
      : {}),
  });
} else if (import.meta.url === `file://${process.argv[1]}`) {
  await main();
}
