import { afterEach, describe, expect, it, vi } from "vitest";
import { ROOT_CONTEXT, SpanStatusCode, trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { Telemetry } from "./telemetry.js";

/** A Telemetry whose spans are kept in memory (no meter: spans only). */
function tracedTelemetry() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { telemetry: new Telemetry({ tracer: provider.getTracer("test") }), spans: () => exporter.getFinishedSpans() };
}

const millisOf = (time: [number, number]) => time[0] * 1000 + time[1] / 1e6;

afterEach(() => vi.restoreAllMocks());

describe("RequestSpan", () => {
  it("a poll's span starts when first needed, dated from the request's start, and ends on the same clock", () => {
    const { telemetry, spans } = tracedTelemetry();
    const startedAt = performance.now() - 50;
    const request = telemetry.requestSpan(
      "tasks/get",
      "tasks/get",
      { "mcp.method.name": "tasks/get" },
      ROOT_CONTEXT,
      startedAt,
    )!;
    expect(request.started).toBe(false);
    request.setAttribute("jobtasks.snapshot.source", "miss");
    const child = telemetry.startSpan("jobtasks.snapshot.read", {}, { parent: request.context() })!;
    expect(request.started).toBe(true);
    child.end();
    // The wall clock steps 5 s forward before the request ends: its span's length is still the request's.
    const now = Date.now();
    vi.spyOn(Date, "now").mockReturnValue(now + 5_000);
    request.end();
    const [read, poll] = spans();
    expect(poll!.name).toBe("tasks/get");
    expect(poll!.attributes).toEqual({ "mcp.method.name": "tasks/get", "jobtasks.snapshot.source": "miss" });
    expect(read!.parentSpanContext?.spanId).toBe(poll!.spanContext().spanId);
    expect(millisOf(poll!.startTime)).toBeLessThanOrEqual(millisOf(read!.startTime) - 45);
    expect(millisOf(poll!.duration)).toBeGreaterThanOrEqual(49);
    expect(millisOf(poll!.duration)).toBeLessThan(1_000);
  });

  it("ends with no span when nothing needed one; after that its context is its parent's and starts nothing", () => {
    const { telemetry, spans } = tracedTelemetry();
    const request = telemetry.requestSpan("tasks/get", "tasks/get", {}, ROOT_CONTEXT, performance.now())!;
    request.end();
    expect(request.context()).toBe(ROOT_CONTEXT);
    expect(request.run(() => trace.getActiveSpan())).toBeUndefined();
    request.end("-32603");
    expect(spans()).toEqual([]);
  });

  it("a failure starts the span it had deferred, marked as failed, once", () => {
    const { telemetry, spans } = tracedTelemetry();
    const request = telemetry.requestSpan("tasks/get", "tasks/get", {}, ROOT_CONTEXT, performance.now())!;
    request.end("-32602");
    request.end("-32602");
    expect(spans()).toHaveLength(1);
    expect(spans()[0]!.attributes["error.type"]).toBe("-32602");
    expect(spans()[0]!.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("any other method's span starts at once, and so does a poll's when every poll is traced", () => {
    const { telemetry } = tracedTelemetry();
    expect(telemetry.requestSpan("tools/call", "tools/call x", {}, ROOT_CONTEXT, performance.now())!.started).toBe(
      true,
    );
    const provider = new BasicTracerProvider();
    const everyPoll = new Telemetry({ tracer: provider.getTracer("test"), tracePollsFromMemory: true });
    expect(everyPoll.requestSpan("tasks/get", "tasks/get", {}, ROOT_CONTEXT, performance.now())!.started).toBe(true);
  });
});
