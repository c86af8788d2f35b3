import { fork } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Telemetry, createSilentLogger, startHttpServer } from "@jobtasks/server";
import {
  describeMachine,
  formatNumber,
  heading,
  markdownTable,
  measureConcurrent,
  percentile,
} from "./support/measure.js";
import { createBenchService, createStatelessAdapter } from "./support/bench-service.js";
import { createRpcClient, resultOf } from "./support/rpc-client.js";
import { planObservability, startObservability } from "../packages/cli/src/observability.js";
import { serverSettingsSchema } from "../packages/cli/src/config-schema.js";

/**
 * What observability costs a poller: server CPU per tasks/get over loopback HTTP, in six servers built
 * alike but for their telemetry. "disabled": the telemetry code turned off (Telemetry({ disabled: true }),
 * every hook returns at its first line: the server as it was before). "no SDK": the default, the
 * OpenTelemetry API with nothing registered (what a server without server.metrics or OTEL_* runs).
 * "metrics": jobtasks serve's SDK set-up with server.metrics only, scraped every second, as Prometheus
 * would. "traces + metrics": jobtasks serve's own SDK set-up (startObservability) for both, spans batched
 * to an OTLP/HTTP receiver; a poll answered from memory gets no span (the default), so what its tracing
 * costs is the deferred span it carries. "every poll traced": the same with server.tracing.pollsFromMemory,
 * a span per poll. "every poll traced, sampled 10 %": that with OTEL_TRACES_SAMPLER=parentbased_traceidratio
 * and OTEL_TRACES_SAMPLER_ARG=0.1, which shows what sampling saves (an unsampled span is still started and
 * carried in the context). Each server runs in its own process (its CPU read on its own, no global
 * registration shared); all run at once and take turns of 2,000 requests (BENCH_TURN_REQUESTS), 30 turns
 * each (BENCH_CYCLES), and each one's CPU over all its turns is compared, and turn by turn.
 *
 * Run: node --import tsx bench/observability.ts
 */

interface Setup {
  metrics: boolean;
  traces?: { sampledTenth: boolean; everyPoll: boolean; sinkPath: string };
}
const setups = {
  disabled: { metrics: false },
  "no SDK": { metrics: false },
  metrics: { metrics: true },
  "traces + metrics": { metrics: true, traces: { sampledTenth: false, everyPoll: false, sinkPath: "default" } },
  "every poll traced + metrics": { metrics: true, traces: { sampledTenth: false, everyPoll: true, sinkPath: "all" } },
  "every poll traced, sampled 10 % + metrics": {
    metrics: true,
    traces: { sampledTenth: true, everyPoll: true, sinkPath: "sampled" },
  },
} satisfies Record<string, Setup>;
type Variant = keyof typeof setups;
const allVariants = Object.keys(setups) as Variant[];
// BENCH_VARIANTS="metrics;traces + metrics" runs those beside the baseline only, for a quicker comparison.
const chosen = process.env["BENCH_VARIANTS"]?.split(";").map((name) => name.trim());
for (const name of chosen ?? [])
  if (!Object.hasOwn(setups, name))
    throw new Error(`BENCH_VARIANTS: no server named "${name}"; the servers are ${allVariants.join("; ")}`);
const variants = allVariants.filter((variant) => variant === "disabled" || !chosen || chosen.includes(variant));
const cycles = Number(process.env["BENCH_CYCLES"] ?? 30);
// Long turns: with 500 a turn lasted a tenth of a second, and a collection or a major GC landing in one
// moved two identical servers' totals 5-10 % apart.
const requestsPerTurn = Number(process.env["BENCH_TURN_REQUESTS"] ?? 2000);
const warmUpRequests = Number(process.env["BENCH_WARM_UP_REQUESTS"] ?? 20_000);
const concurrency = 8;
const protocolVersion = "2026-07-28";
const hardLimitMs = 120_000;

const envelope = {
  "io.modelcontextprotocol/protocolVersion": protocolVersion,
  "io.modelcontextprotocol/clientInfo": { name: "jobtasks-bench", version: "0.0.0" },
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};

type ChildMessage = { type: "listening"; url: string } | { type: "cpu"; micros: number };

/** The server half: one variant, answering "cpu" with its CPU time so far and exiting on "stop". */
async function serve(variant: Variant, otlpUrl: string): Promise<void> {
  const logger = createSilentLogger();
  const setup = setups[variant] as Setup;
  // The sampling a poller-heavy deployment would set, read by the SDK from the environment at its start.
  if (setup.traces?.sampledTenth) {
    process.env["OTEL_TRACES_SAMPLER"] = "parentbased_traceidratio";
    process.env["OTEL_TRACES_SAMPLER_ARG"] = "0.1";
  }
  const observability = setup.metrics
    ? await startObservability(
        planObservability(
          serverSettingsSchema.parse({ metrics: {} }),
          setup.traces ? { OTEL_EXPORTER_OTLP_ENDPOINT: `${otlpUrl}/${setup.traces.sinkPath}` } : {},
        ),
        { name: "jobtasks-bench", version: "0.0.0" },
        {},
        logger,
      )
    : undefined;
  const { adapter } = createStatelessAdapter();
  const telemetry =
    variant === "disabled"
      ? new Telemetry({ disabled: true })
      : new Telemetry({
          tracePollsFromMemory: setup.traces?.everyPoll ?? false,
          ...(observability?.histograms ? { histograms: observability.histograms } : {}),
        });
  const service = createBenchService([{ name: "bench", adapter }], { snapshotCacheMs: 1000, telemetry });
  if (variant === "no SDK" && service.telemetry.enabled) throw new Error("an SDK is registered in the no-SDK run");
  if (setup.metrics && !(service.telemetry.metering && service.telemetry.tracing === (setup.traces !== undefined)))
    throw new Error(`the ${variant} server does not record what it should`);
  const server = await startHttpServer({
    service,
    logger,
    name: "jobtasks-bench",
    version: "0.0.0",
    port: 0,
    ...(observability?.metricsEndpoint ? { metrics: observability.metricsEndpoint } : {}),
  });
  const stop = async () => {
    await server.close();
    await observability?.shutdown();
    process.exit(0);
  };
  setTimeout(() => void stop(), hardLimitMs).unref();
  process.on("disconnect", () => void stop());
  process.on("message", (message: { type: "cpu" | "stop" }) => {
    if (message.type === "stop") void stop();
    else {
      const usage = process.cpuUsage();
      process.send?.({ type: "cpu", micros: usage.user + usage.system } satisfies ChildMessage);
    }
  });
  process.send?.({ type: "listening", url: server.url } satisfies ChildMessage);
}

/** Where the traces go: a receiver in the parent that takes each batch and forgets it. */
async function startSpanSink() {
  // Batches counted by the first segment of their path: each traced server has its own.
  const exports = new Map<string, number>();
  const sink = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const server = (request.url ?? "/").split("/")[1] ?? "";
      exports.set(server, (exports.get(server) ?? 0) + 1);
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(sink.address() as AddressInfo).port}`,
    exports: (server: string) => exports.get(server) ?? 0,
    close: () => new Promise<void>((resolve) => sink.close(() => resolve())),
  };
}

interface RunningVariant {
  variant: Variant;
  get(): Promise<void>;
  cpu(): Promise<number>;
  failures(): number;
  stop(): Promise<void>;
}

async function startVariant(variant: Variant, otlpUrl: string): Promise<RunningVariant> {
  const extraFlags = process.env["BENCH_SERVER_NODE_FLAGS"]?.split(" ").filter(Boolean) ?? [];
  const child = fork(fileURLToPath(import.meta.url), ["--serve", variant, otlpUrl], {
    execArgv: [...process.execArgv, ...extraFlags],
  });
  const [listening] = (await once(child, "message")) as [ChildMessage];
  if (listening.type !== "listening") throw new Error("the benchmark server did not start");
  const client = createRpcClient(listening.url, concurrency);
  let nextId = 1;
  const call = (method: string, params: Record<string, unknown>, name: string) =>
    client.post(JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: envelope } }), {
      "mcp-protocol-version": protocolVersion,
      "mcp-method": method,
      "mcp-name": name,
    });
  const created = await call("tools/call", { name: "bench_job", arguments: {} }, "bench_job");
  const taskId = resultOf(created.body)?.["taskId"];
  if (typeof taskId !== "string") throw new Error(`no task: ${created.body.slice(0, 200)}`);
  let failures = 0;
  // A scrape a second, as Prometheus would, where there is an endpoint to scrape.
  const scraper = (setups[variant] as Setup).metrics
    ? setInterval(() => void fetch(new URL("/metrics", listening.url)).then((response) => response.arrayBuffer()), 1000)
    : undefined;
  return {
    variant,
    get: async () => {
      const answer = await call("tasks/get", { taskId }, taskId);
      if (answer.status !== 200 || resultOf(answer.body)?.["status"] !== "working") failures += 1;
    },
    cpu: async () => {
      child.send({ type: "cpu" });
      const [reply] = (await once(child, "message")) as [ChildMessage];
      if (reply.type !== "cpu") throw new Error("unexpected message");
      return reply.micros;
    },
    failures: () => failures,
    stop: async () => {
      clearInterval(scraper);
      client.close();
      const exited = once(child, "exit");
      child.send({ type: "stop" });
      await exited;
    },
  };
}

async function main(): Promise<void> {
  console.log(describeMachine());
  heading(
    `tasks/get server CPU by telemetry (${formatNumber(cycles * requestsPerTurn)} requests each, in ${cycles} turns of ${requestsPerTurn}, concurrency ${concurrency})`,
  );
  const sink = await startSpanSink();
  // All the servers run side by side and take turns: whatever else loads the machine loads them alike.
  const running = await Promise.all(variants.map((variant) => startVariant(variant, sink.url)));
  const totals = new Map<Variant, { micros: number; operations: number; turns: number[] }>(
    variants.map((variant) => [variant, { micros: 0, operations: 0, turns: [] }]),
  );
  try {
    // Warm every server until its JIT has settled: with 1,000 requests the first turns still cost two or
    // three times the later ones, and how long each server took to settle moved its total.
    for (const server of running)
      await measureConcurrent({ maxOperations: warmUpRequests, maxMilliseconds: 10_000 }, concurrency, server.get);
    for (let cycle = 0; cycle < cycles; cycle++) {
      // Each cycle starts with another variant, so none is always first after a pause.
      for (let offset = 0; offset < running.length; offset++) {
        const server = running[(cycle + offset) % running.length]!;
        const before = await server.cpu();
        const result = await measureConcurrent(
          { maxOperations: requestsPerTurn, maxMilliseconds: 20_000 },
          concurrency,
          server.get,
        );
        const micros = (await server.cpu()) - before;
        const total = totals.get(server.variant)!;
        total.micros += micros;
        total.operations += result.operations;
        total.turns.push(micros / result.operations);
      }
    }
    for (const server of running)
      if (server.failures() > 0) throw new Error(`${server.failures()} tasks/get failed in the ${server.variant} run`);
  } finally {
    await Promise.all(running.map((server) => server.stop()));
    await sink.close();
  }
  const perRequest = (variant: Variant) => totals.get(variant)!.micros / totals.get(variant)!.operations;
  // Beside the totals, each turn against the disabled server's turn of the same cycle, and the median of
  // those: a burst of the host's own load lands in a few turns and moves the total of whichever server had
  // them, and a slower spell of the host moves both turns of a cycle alike.
  const disabledTurns = totals.get("disabled")!.turns;
  const medianRatio = (variant: Variant) =>
    percentile(
      totals.get(variant)!.turns.map((micros, cycle) => micros / disabledTurns[cycle]!),
      50,
    );
  const baseline = perRequest("disabled");
  const rows = variants.map((variant) => {
    const turns = [...totals.get(variant)!.turns].sort((a, b) => a - b);
    return [
      variant,
      formatNumber(perRequest(variant), 1),
      `${formatNumber(turns[0]!, 0)}–${formatNumber(turns.at(-1)!, 0)}`,
      formatNumber(perRequest(variant) / baseline, 3),
      formatNumber(medianRatio(variant), 3),
    ];
  });
  console.log(
    markdownTable(
      ["telemetry", "server CPU µs/request", "range over turns", "÷ disabled", "median of turns ÷ disabled turn"],
      rows,
    ),
  );
  for (const variant of variants) {
    const { traces } = setups[variant] as Setup;
    if (traces) console.log(`\nOTLP exports received from the ${variant} server: ${sink.exports(traces.sinkPath)}`);
  }
}

if (process.argv[2] === "--serve") await serve(process.argv[3] as Variant, process.argv[4]!);
else if (import.meta.url === `file://${process.argv[1]}`) await main();
