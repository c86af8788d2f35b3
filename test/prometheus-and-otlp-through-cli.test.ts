import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ensureDebianProgram } from "./support/debian-package.js";
import { cliEnvironment, startCliHttpServer, type CliHttpServer } from "./support/cli-process.js";
import { startDemoApiForTests } from "./support/demo-stack.js";
import { Cleanup, randomSecret } from "./support/in-process-server.js";
import { rawCall } from "./support/raw-rpc.js";
import { startOtlpReceiver } from "./support/otlp-receiver.js";

/**
 * `jobtasks serve` as an operator runs it, with `server.metrics` on a port of its own behind a token and
 * the OTEL_* variables pointing at a receiver: the exposition passes Debian's `promtool check metrics`, a
 * real Prometheus started here scrapes it and answers a query about the demo's task, the spans arrive over
 * OTLP/HTTP, and the log lines of a request carry its trace id.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const metricsToken = "metrics-scrape-token-0123456789";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function until<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > giveUpAt) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function metricsUrlOf(server: CliHttpServer): string | undefined {
  for (const line of server.stderr().split("\n")) {
    if (!line.startsWith("{")) continue;
    const entry = JSON.parse(line) as { msg?: string; url?: string };
    if (entry.msg === "serving metrics") return entry.url;
  }
  return undefined;
}

async function serveDemo() {
  const directory = mkdtempSync(join(tmpdir(), "jobtasks-observability-"));
  cleanup.defer(async () => rmSync(directory, { recursive: true, force: true }));
  const api = cleanup.add(await startDemoApiForTests());
  const receiver = cleanup.add(await startOtlpReceiver());
  const config = join(directory, "jobtasks.config.yaml");
  writeFileSync(
    config,
    [
      "server:",
      "  snapshotCacheMs: 0",
      "  metrics:",
      "    port: 0",
      "    token: ${METRICS_TOKEN}",
      "adapters:",
      "  - name: demo",
      "    kind: demo",
      "    options:",
      `      baseUrl: ${api.url}`,
      "      pollIntervalMs: 100",
    ].join("\n"),
  );
  const server = await startCliHttpServer({
    config,
    env: cliEnvironment({
      JOBTASKS_SECRET: randomSecret(),
      METRICS_TOKEN: metricsToken,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: "jobtasks-e2e",
      // The receiver reads JSON; the default, protobuf, is what a collector reads.
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      // Batches leave every 200 ms instead of every 5 s.
      OTEL_BSP_SCHEDULE_DELAY: "200",
    }),
  });
  cleanup.defer(() => server.close());
  const metricsUrl = await until(async () => metricsUrlOf(server), "the metrics URL log line");
  return { directory, server, metricsUrl, receiver };
}

async function runDemoPipeline(url: string): Promise<string> {
  const call = await rawCall(url, "tools/call", { name: "demo_pipeline", arguments: {} });
  const taskId = call.body?.result?.["taskId"] as string;
  expect(taskId).toEqual(expect.any(String));
  await rawCall(url, "tasks/get", { taskId });
  return taskId;
}

describe("metrics and traces of jobtasks serve", () => {
  it(
    "serves an exposition promtool accepts, behind its token, and a real Prometheus scrapes it",
    { timeout: 120_000 },
    async () => {
      const promtool = ensureDebianProgram("prometheus", ["/usr/bin/promtool"]);
      const prometheus = ensureDebianProgram("prometheus", ["/usr/bin/prometheus"]);
      const { directory, server, metricsUrl } = await serveDemo();
      const taskId = await runDemoPipeline(server.url);

      expect((await fetch(metricsUrl)).status).toBe(401);
      expect((await fetch(metricsUrl, { headers: { authorization: "Bearer not-the-token-0123456789" } })).status).toBe(
        401,
      );
      const scrape = await fetch(metricsUrl, { headers: { authorization: `Bearer ${metricsToken}` } });
      expect(scrape.status).toBe(200);
      expect(scrape.headers.get("content-type")).toContain("text/plain; version=0.0.4");
      const exposition = await scrape.text();
      expect(exposition).toContain("jobtasks_tasks_started_total");
      expect(exposition).not.toContain(taskId);
      const check = spawnSync(promtool, ["check", "metrics"], { input: exposition, encoding: "utf8" });
      expect(`${check.stdout}${check.stderr}`).toBe("");
      expect(check.status).toBe(0);
      // The MCP port does not serve them when they have a port of their own.
      expect((await fetch(new URL("/metrics", server.url))).status).toBe(404);

      const port = await freePort();
      const target = new URL(metricsUrl);
      const prometheusConfig = join(directory, "prometheus.yml");
      writeFileSync(
        prometheusConfig,
        [
          "global:",
          "  scrape_interval: 1s",
          "scrape_configs:",
          "  - job_name: jobtasks",
          "    metrics_path: /metrics",
          "    authorization:",
          `      credentials: ${metricsToken}`,
          "    static_configs:",
          `      - targets: ["${target.host}"]`,
        ].join("\n"),
      );
      const child: ChildProcess = spawn(
        prometheus,
        [
          `--config.file=${prometheusConfig}`,
          `--storage.tsdb.path=${join(directory, "tsdb")}`,
          `--web.listen-address=127.0.0.1:${port}`,
        ],
        { stdio: "ignore" },
      );
      cleanup.defer(async () => {
        child.kill("SIGKILL");
        await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once("exit", resolve)));
      });
      const query = async (expression: string) => {
        const response = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(expression)}`);
        const body = (await response.json()) as {
          data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
        };
        return body.data.result.length > 0 ? body.data.result : undefined;
      };
      const started = await until(() => query("jobtasks_tasks_started_total"), "Prometheus's first scrape", 60_000);
      expect(started[0]?.metric).toMatchObject({
        job: "jobtasks",
        gen_ai_tool_name: "demo_pipeline",
        jobtasks_adapter_instance: "demo",
      });
      expect(Number(started[0]?.value[1])).toBe(1);
      const up = await query('up{job="jobtasks"}');
      expect(up?.[0]?.value[1]).toBe("1");
      const upstream = await query(
        'sum by (jobtasks_upstream_operation) (jobtasks_upstream_request_duration_count{jobtasks_adapter_instance="demo"})',
      );
      expect(upstream?.map((sample) => sample.metric["jobtasks_upstream_operation"])).toContain("POST /jobs");
    },
  );

  it(
    "exports spans over OTLP/HTTP to the endpoint the OTEL_* variables name, and logs carry their trace ids",
    { timeout: 60_000 },
    async () => {
      const { server, receiver } = await serveDemo();
      await runDemoPipeline(server.url);
      const toolsCall = await until(
        async () => receiver.spans.find((span) => span.name === "tools/call demo_pipeline"),
        "the tools/call span's export",
      );
      expect(toolsCall.serviceName).toBe("jobtasks-e2e");
      expect(toolsCall.attributes).toMatchObject({
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "demo_pipeline",
      });
      const submit = await until(
        async () => receiver.spans.find((span) => span.name === "POST /jobs"),
        "the upstream span",
      );
      expect(submit.parentSpanId).toBe(toolsCall.spanId);
      expect(receiver.contentTypes[0]).toContain("application/json");

      const created = server
        .stderr()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((entry) => entry["msg"] === "task created");
      expect(created).toMatchObject({ trace_id: toolsCall.traceId, span_id: toolsCall.spanId });
    },
  );
});
