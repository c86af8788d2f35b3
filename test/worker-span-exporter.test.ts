import { afterEach, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import type { AddressInfo } from "node:net";
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, createTraceState, trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { createSilentLogger } from "@jobtasks/server";
import { WorkerSpanExporter } from "../packages/cli/dist/worker-span-exporter.js";
import { Cleanup } from "./support/in-process-server.js";

/**
 * The exporter `jobtasks serve` sends OTLP through: its batches leave from a worker thread, and must be
 * what the OpenTelemetry exporter would have sent from the main thread, byte for byte (in protobuf, that
 * includes spans of one scope and resource grouped as one).
 */

const exportThenExit = fileURLToPath(new URL("./support/export-then-exit.mjs", import.meta.url));
const cleanup = new Cleanup();
afterEach(() => cleanup.run());

interface Received {
  contentType: string;
  body: Buffer;
}

async function startCollector(status = 200) {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ contentType: String(request.headers["content-type"]), body: Buffer.concat(chunks) });
      response.writeHead(status, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanup.defer(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`, received };
}

/** Finished spans with what an export carries: a remote parent with a trace state, events, links, an error. */
function recordedSpans(): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  const tracer = provider.getTracer("@jobtasks/server", "0.1.0");
  const caller = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
    spanId: "00f067aa0ba902b7",
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
    traceState: createTraceState("vendor=value,other=1"),
  });
  const server = tracer.startSpan(
    "tasks/get",
    { kind: SpanKind.SERVER, attributes: { "mcp.method.name": "tasks/get", "list.value": ["a", "b"] } },
    caller,
  );
  const child = tracer.startSpan(
    "GET /jobs/{job_id}",
    {
      kind: SpanKind.CLIENT,
      attributes: { "http.response.status_code": 503, "http.request.resend_count": 2 },
      links: [{ context: server.spanContext(), attributes: { reason: "retry" } }],
    },
    trace.setSpan(caller, server),
  );
  child.addEvent("retrying", { attempt: 2 });
  child.setStatus({ code: SpanStatusCode.ERROR, message: "503" });
  child.end();
  server.end();
  expect(server.spanContext().traceFlags & TraceFlags.SAMPLED).toBe(TraceFlags.SAMPLED);
  return memory.getFinishedSpans();
}

function exportThrough(
  exporter: { export(spans: ReadableSpan[], done: (result: { code: number }) => void): void },
  spans: ReadableSpan[],
) {
  return new Promise<number>((resolve) => exporter.export(spans, (result) => resolve(result.code)));
}

describe("WorkerSpanExporter", () => {
  it("sends from its worker the very request the OTLP exporter sends, in JSON and in protobuf", async () => {
    const spans = recordedSpans();
    for (const [protocol, Library] of [
      ["http/json", JsonExporter],
      ["http/protobuf", ProtobufExporter],
    ] as const) {
      const direct = await startCollector();
      const library = new Library({ url: direct.url });
      expect(await exportThrough(library, spans)).toBe(0);
      await library.shutdown();
      const viaWorker = await startCollector();
      const exporter = await WorkerSpanExporter.start({ url: viaWorker.url, protocol }, createSilentLogger());
      expect(await exportThrough(exporter, spans)).toBe(0);
      await exporter.shutdown();
      expect(viaWorker.received.map((received) => received.contentType)).toEqual([direct.received[0]!.contentType]);
      expect(viaWorker.received[0]!.body.equals(direct.received[0]!.body), protocol).toBe(true);
    }
  });

  it("keeps the process alive while an export, a flush or a shutdown is awaited", async () => {
    const collector = await startCollector();
    // Asynchronously: the collector answers from this process.
    const child = await promisify(execFile)(process.execPath, [exportThenExit, collector.url], { timeout: 30_000 });
    expect(child.stderr).toBe("");
    expect(child.stdout).toBe("exported: 0\nshut down\n");
    expect(collector.received).toHaveLength(1);
    expect(collector.received[0]!.body.toString("utf8")).toContain("sent before exit");
  });

  it("reports a refused export as failed, and fails at once once its worker is gone", async () => {
    const refusing = await startCollector(400);
    const exporter = await WorkerSpanExporter.start({ url: refusing.url, protocol: "http/json" }, createSilentLogger());
    expect(await exportThrough(exporter, recordedSpans())).toBe(1);
    expect(refusing.received).toHaveLength(1);
    await exporter.shutdown();
    expect(await exportThrough(exporter, recordedSpans())).toBe(1);
    expect(refusing.received).toHaveLength(1);
  });
});
