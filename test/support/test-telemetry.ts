import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { setUpstreamRequestObserver } from "@jobtasks/core/adapter-utils";
import { Telemetry, instrumentationScope } from "@jobtasks/server";

/**
 * The OpenTelemetry SDK as a test registers it: spans kept in memory as they end, metrics read on demand
 * in the Prometheus text format (what a scrape of /metrics gets), and the async context manager that
 * carries a span's children. The Telemetry it gives is passed to the TaskService (no global provider).
 */
export interface TestTelemetry {
  telemetry: Telemetry;
  spans(): ReadableSpan[];
  span(name: string): ReadableSpan;
  prometheusText(): Promise<string>;
  close(): Promise<void>;
}

/** `tracePollsFromMemory`: the Telemetry option of that name (every tasks/get gets a span). */
export function startTestTelemetry(options: { tracePollsFromMemory?: boolean } = {}): TestTelemetry {
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new PrometheusExporter({ preventServerStart: true });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const telemetry = new Telemetry({
    tracer: tracerProvider.getTracer(instrumentationScope),
    meter: meterProvider.getMeter(instrumentationScope),
    ...options,
  });
  const serializer = new PrometheusSerializer();
  return {
    telemetry,
    spans: () => exporter.getFinishedSpans(),
    span: (name) => {
      const found = exporter.getFinishedSpans().find((span) => span.name === name);
      if (!found)
        throw new Error(
          `no span named ${name}; spans: ${exporter
            .getFinishedSpans()
            .map((span) => span.name)
            .join(", ")}`,
        );
      return found;
    },
    prometheusText: async () => serializer.serialize((await reader.collect()).resourceMetrics),
    close: async () => {
      setUpstreamRequestObserver(undefined);
      context.disable();
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}

/** The samples of a metric in a Prometheus text, as label sets (name → value) with the sample's value. */
export function samplesOf(text: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  return text
    .split("\n")
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .map((line) => {
      const labelText = /\{(.*)\}/.exec(line)?.[1] ?? "";
      const labels = Object.fromEntries(
        [...labelText.matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
      );
      return { labels: labels as Record<string, string>, value: Number(line.slice(line.lastIndexOf(" ") + 1)) };
    });
}
