import { ConfigError } from "@jobtasks/core";
import {
  Telemetry,
  createMetricsEndpoint,
  type Logger,
  type MetricsEndpoint,
  type ProcessHistograms,
} from "@jobtasks/server";
import type { ServerSettings } from "./config-schema.js";
import { WorkerSpanExporter } from "./worker-span-exporter.js";

type Environment = Readonly<Record<string, string | undefined>>;

/** What `jobtasks serve` registers, decided from the config and the standard OTEL_* variables. */
export interface ObservabilityPlan {
  /** Prometheus metrics: served at /metrics (on the MCP port, or `port`). */
  metrics: NonNullable<ServerSettings["metrics"]> | undefined;
  /** Where spans go: OTLP/HTTP to this URL, or the console; undefined for no traces. */
  traces:
    | { exporter: "otlp"; url: string; protocol: "http/protobuf" | "http/json" }
    | { exporter: "console" }
    | undefined;
}

/**
 * Read the plan. Traces follow the OpenTelemetry SDK's variables: OTEL_TRACES_EXPORTER (otlp, console,
 * none), OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT (+ /v1/traces), and
 * OTEL_SDK_DISABLED=true turns everything off. Without any of them nothing is loaded.
 */
export function planObservability(settings: ServerSettings, environment: Environment): ObservabilityPlan {
  if (environment["OTEL_SDK_DISABLED"]?.trim().toLowerCase() === "true")
    return { metrics: undefined, traces: undefined };
  return { metrics: settings.metrics, traces: planTraces(environment) };
}

function planTraces(environment: Environment): ObservabilityPlan["traces"] {
  const exporters = (environment["OTEL_TRACES_EXPORTER"] ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "");
  const signalEndpoint = environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]?.trim();
  const baseEndpoint = environment["OTEL_EXPORTER_OTLP_ENDPOINT"]?.trim();
  if (exporters.includes("none")) return undefined;
  if (exporters.includes("console")) return { exporter: "console" };
  if (exporters.length > 0 && !exporters.includes("otlp"))
    throw new ConfigError("OTEL_TRACES_EXPORTER", `expected otlp, console or none, got "${exporters.join(",")}"`);
  // The SDK's rule: an explicit exporter without an endpoint sends to the local collector's default port.
  if (exporters.length === 0 && !signalEndpoint && !baseEndpoint) return undefined;
  const url = signalEndpoint || `${(baseEndpoint || "http://localhost:4318").replace(/\/+$/, "")}/v1/traces`;
  try {
    new URL(url);
  } catch {
    throw new ConfigError(
      signalEndpoint ? "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" : "OTEL_EXPORTER_OTLP_ENDPOINT",
      "expected an http(s) URL",
    );
  }
  const protocolVariable = environment["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"]
    ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
    : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const protocol = environment[protocolVariable]?.trim().toLowerCase() || "http/protobuf";
  if (protocol !== "http/protobuf" && protocol !== "http/json")
    throw new ConfigError(protocolVariable, `expected http/protobuf or http/json, got "${protocol}"`);
  return { exporter: "otlp", url, protocol };
}

export interface StartedObservability {
  /** The /metrics answer, when metrics are on. */
  metricsEndpoint: MetricsEndpoint | undefined;
  /** Where the service's Telemetry records its durations (its `histograms`), when metrics are on. */
  histograms: ProcessHistograms | undefined;
  /** Flush the spans still batched, and stop the providers. */
  shutdown(): Promise<void>;
}

/**
 * Register the OpenTelemetry SDK the plan asks for, before the task service is built (it looks at what is
 * registered then). The SDK packages load here, only when asked for: a server without metrics or traces
 * configured never parses them. A lazily imported CommonJS package may come as `default` only (the command
 * line's split bundle gives it so), hence `moduleOf`.
 */
export async function startObservability(
  plan: ObservabilityPlan,
  service: { name: string; version: string },
  environment: Environment,
  logger: Logger,
): Promise<StartedObservability> {
  if (plan.metrics === undefined && plan.traces === undefined)
    return { metricsEndpoint: undefined, histograms: undefined, shutdown: async () => {} };
  const [api, resources, contextAsyncHooks] = await Promise.all([
    import("@opentelemetry/api").then(moduleOf),
    sdkPackage(import("@opentelemetry/resources"), "@opentelemetry/resources"),
    sdkPackage(import("@opentelemetry/context-async-hooks"), "@opentelemetry/context-async-hooks"),
  ]);
  // Spans' parents and the adapter instance of an upstream request travel in the async context.
  const contextManager = new contextAsyncHooks.AsyncLocalStorageContextManager().enable();
  api.context.setGlobalContextManager(contextManager);
  const resource = resources
    .resourceFromAttributes({
      "service.name": environment["OTEL_SERVICE_NAME"] || service.name,
      "service.version": service.version,
    })
    // OTEL_RESOURCE_ATTRIBUTES (deployment.environment, service.namespace...), as every SDK reads it.
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const shutdowns: Array<() => Promise<void>> = [];
  let metricsEndpoint: MetricsEndpoint | undefined;
  let histograms: ProcessHistograms | undefined;

  if (plan.metrics !== undefined) {
    const [sdkMetrics, prometheus] = await Promise.all([
      sdkPackage(import("@opentelemetry/sdk-metrics"), "@opentelemetry/sdk-metrics"),
      sdkPackage(import("@opentelemetry/exporter-prometheus"), "@opentelemetry/exporter-prometheus"),
    ]);
    // The duration histograms every request records to are aggregated in the process, the reader collecting
    // them beside the SDK's own instruments (process-histograms.ts says why).
    histograms = Telemetry.createProcessHistograms();
    const reader = new prometheus.PrometheusExporter({
      preventServerStart: true,
      metricProducers: [histograms.metricProducer(resource)],
    });
    const provider = new sdkMetrics.MeterProvider({ resource, readers: [reader] });
    api.metrics.setGlobalMeterProvider(provider);
    const serializer = new prometheus.PrometheusSerializer();
    metricsEndpoint = createMetricsEndpoint({
      collect: async () => {
        const { resourceMetrics, errors } = await reader.collect();
        if (errors.length > 0) logger.warn({ errors: errors.length }, "some metrics could not be collected");
        return serializer.serialize(resourceMetrics);
      },
      token: plan.metrics.token,
    });
    shutdowns.push(() => provider.shutdown());
  }

  if (plan.traces !== undefined) {
    const [traceNode, traceBase] = await Promise.all([
      sdkPackage(import("@opentelemetry/sdk-trace-node"), "@opentelemetry/sdk-trace-node"),
      sdkPackage(import("@opentelemetry/sdk-trace-base"), "@opentelemetry/sdk-trace-base"),
    ]);
    const traces = plan.traces;
    // Protobuf by default, as the specification has it; it also costs less CPU to encode than JSON. OTLP
    // requests leave from a worker thread (worker-span-exporter.ts says why).
    const exporter =
      traces.exporter === "console"
        ? new traceBase.ConsoleSpanExporter()
        : await WorkerSpanExporter.start({ url: traces.url, protocol: traces.protocol }, logger);
    // Batched: a request never waits for an export, and a collector that is down costs a dropped batch.
    const provider = new traceNode.NodeTracerProvider({
      resource,
      spanProcessors: [new traceBase.BatchSpanProcessor(exporter)],
    });
    provider.register({ contextManager });
    shutdowns.push(() => provider.shutdown());
    logger.info(
      {
        exporter: plan.traces.exporter,
        ...(plan.traces.exporter === "otlp" ? { endpoint: originOf(plan.traces.url) } : {}),
      },
      "exporting traces",
    );
  }
  return {
    metricsEndpoint,
    histograms,
    shutdown: async () => {
      await Promise.allSettled(shutdowns.map((shutdown) => shutdown()));
    },
  };
}

/**
 * An SDK package, or a start-up error saying to install it. The command line's bundle carries them all; a
 * program that calls serve() from the package's modules installs the ones it configures (optional peers).
 */
async function sdkPackage<T extends object>(imported: Promise<T>, name: string): Promise<T> {
  try {
    return moduleOf(await imported);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw error;
    throw new ConfigError(
      name.includes("metric") || name.includes("prometheus") ? "server.metrics" : "OTEL_EXPORTER_OTLP_ENDPOINT",
      `needs ${name}, an optional peer dependency of jobtasks: install it beside jobtasks`,
    );
  }
}

/** A URL's origin only: a collector URL may carry a key in its path or query. */
function originOf(url: string): string {
  return new URL(url).origin;
}

function moduleOf<T extends object>(imported: T): T {
  return { ...(imported as { default?: T }).default, ...imported };
}
