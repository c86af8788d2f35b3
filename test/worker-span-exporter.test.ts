import { afterEach, describe, expect, it } from "vitest";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, createTraceState, trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { createSilentLogger } from "@jobtasks/server";
import { WorkerSpanExporter } from "../packages/cli/dist/worker-span-exporter.js";
import { Cleanup } from "./support/in-process-server.js";

/**
 * The exporter `jobtasks serve` sends OTLP through: its batches leave from a worker thread, and must be
 * what the OpenTelemetry exporter would have sent from the main thread, byte for byte.
 */

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
    const direct = await startCollector();
    const library = new OTLPTraceExporter({ url: direct.url });
    expect(await exportThrough(library, spans)).toBe(0);
    await library.shutdown();

    const viaWorker = await startCollector();
    const json = await WorkerSpanExporter.start({ url: viaWorker.url, protocol: "http/json" }, createSilentLogger());
    expect(await exportThrough(json, spans)).toBe(0);
    await json.shutdown();
    expect(viaWorker.received[0]!.contentType).toBe(direct.received[0]!.contentType);
    expect(JSON.parse(viaWorker.received[0]!.body.toString("utf8"))).toEqual(
      JSON.parse(direct.received[0]!.body.toString("utf8")),
    );

    const protobuf = await WorkerSpanExporter.start(
      { url: viaWorker.url, protocol: "http/protobuf" },
      createSilentLogger(),
    );
    expect(await exportThrough(protobuf, spans)).toBe(0);
    await protobuf.shutdown();
    expect(viaWorker.received[1]!.contentType).toBe("application/x-protobuf");
    // The trace id, the trace state and the span names travel as they are in protobuf.
    const body = viaWorker.received[1]!.body;
    expect(body.includes(Buffer.from("4bf92f3577b34da6a3ce929d0e0e4736", "hex"))).toBe(true);
    expect(body.includes(Buffer.from("vendor=value,other=1"))).toBe(true);
    expect(body.includes(Buffer.from("GET /jobs/{job_id}"))).toBe(true);
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
