import { describe, expect, it } from "vitest";
import { AggregationTemporality, MeterProvider, MetricReader, type MetricProducer } from "@opentelemetry/sdk-metrics";
import { PrometheusSerializer } from "@opentelemetry/exporter-prometheus";
import { ProcessHistograms } from "./process-histograms.js";
import { Telemetry } from "./telemetry.js";

/** A reader that collects on demand, as a Prometheus scrape does, with producers beside the SDK. */
class OnDemandReader extends MetricReader {
  constructor(options: { metricProducers?: MetricProducer[] } = {}) {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE, ...options });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** The reader keeps the SDK's resource and reads a producer's scope metrics only: no resource is needed. */
const producerOf = (histograms: ProcessHistograms) => histograms.metricProducer(undefined) as unknown as MetricProducer;

const boundaries = [0.001, 0.01, 0.1, 1];
const options = { description: "requests served", unit: "s", boundaries };
// On a bound, below the first, between, above the last, and twice in one bucket.
const values = [0.001, 0.0002, 0.05, 0.05, 0.5, 7, 0.01];

/** The same recordings through the SDK's own histogram, serialised as a scrape would be. */
async function throughTheSdk(recordings: Array<[number, Record<string, string>]>) {
  const reader = new OnDemandReader();
  const provider = new MeterProvider({ readers: [reader] });
  const histogram = provider
    .getMeter("@jobtasks/server")
    .createHistogram("test.duration", { ...options, advice: { explicitBucketBoundaries: boundaries } });
  for (const [value, attributes] of recordings) histogram.record(value, attributes);
  const { resourceMetrics } = await reader.collect();
  await provider.shutdown();
  return resourceMetrics;
}

describe("ProcessHistograms", () => {
  it("hands a reader the buckets, count, sum, min and max the SDK's own histogram would", async () => {
    const recordings: Array<[number, Record<string, string>]> = values.map((value, index) => [
      value,
      { route: index % 2 === 0 ? "/mcp" : "/healthz" },
    ]);
    const sdk = await throughTheSdk(recordings);

    const histograms = new ProcessHistograms("@jobtasks/server");
    const histogram = histograms.histogram("test.duration", options);
    for (const [value, attributes] of recordings) histogram.record(value, attributes["route"]!, () => attributes);
    const reader = new OnDemandReader({ metricProducers: [producerOf(histograms)] });
    const provider = new MeterProvider({ readers: [reader] });
    const ours = (await reader.collect()).resourceMetrics;
    await provider.shutdown();

    const pointsOf = (metrics: typeof sdk) =>
      metrics.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .flatMap((metric) => metric.dataPoints.map((point) => ({ attributes: point.attributes, value: point.value })));
    expect(pointsOf(ours)).toEqual(pointsOf(sdk));
    expect(pointsOf(ours)).toContainEqual({
      attributes: { route: "/healthz" },
      value: { buckets: { boundaries, counts: [1, 0, 1, 0, 1] }, count: 3, sum: 7.0502, min: 0.0002, max: 7 },
    });
    // What Prometheus reads: the same exposition, byte for byte, the SDK's resource kept by the reader.
    const serializer = new PrometheusSerializer();
    expect(serializer.serialize(ours)).toBe(serializer.serialize(sdk));
    expect(serializer.serialize(ours)).toContain(
      'test_duration_bucket{route="/mcp",otel_scope_name="@jobtasks/server",le="0.001"} 1',
    );
  });

  it("is cumulative: each collection has every recording so far, and copies the exporter may keep", () => {
    const histograms = new ProcessHistograms("scope");
    const histogram = histograms.histogram("test.duration", options);
    histogram.record(0.5, "a", () => ({ series: "a" }));
    const first = histograms.collect();
    histogram.record(0.5, "a", () => ({ series: "a" }));
    histogram.record(Number.NaN, "a", () => ({ series: "a" }));
    histogram.record(-0.5, "a", () => ({ series: "a" }));
    const second = histograms.collect();
    expect(first[0]!.dataPoints[0]!.value.count).toBe(1);
    expect(first[0]!.dataPoints[0]!.value.buckets.counts).toEqual([0, 0, 0, 1, 0]);
    expect(second[0]!.dataPoints[0]!.value).toMatchObject({ count: 2, sum: 1 });
    expect(second[0]!.dataPoints[0]!.startTime).toEqual(first[0]!.dataPoints[0]!.startTime);
  });

  it("makes a series' attribute set once, gives one histogram per name, and leaves out the unrecorded", () => {
    const histograms = new ProcessHistograms("scope");
    let made = 0;
    const histogram = histograms.histogram("test.duration", options);
    expect(histograms.histogram("test.duration", options)).toBe(histogram);
    histograms.histogram("test.other", options);
    for (let index = 0; index < 5; index++) histogram.record(0.002, "k", () => ({ made: ++made }));
    expect(made).toBe(1);
    const collected = histograms.collect();
    expect(collected.map((metric) => metric.descriptor.name)).toEqual(["test.duration"]);
    expect(collected[0]!.dataPoints[0]!.attributes).toEqual({ made: 1 });
  });

  it("puts series past its limit in one overflow series, as the SDK's cardinality limit does", () => {
    const histograms = new ProcessHistograms("scope");
    const histogram = histograms.histogram("test.duration", options);
    for (let index = 0; index < 2010; index++) histogram.record(0.002, `k${index}`, () => ({ key: `k${index}` }));
    histogram.record(0.002, "k0", () => ({ key: "k0" }));
    const points = histograms.collect()[0]!.dataPoints;
    expect(points).toHaveLength(2001);
    expect(points.find((point) => point.attributes["otel.metric.overflow"] === true)?.value.count).toBe(10);
    expect(points.find((point) => point.attributes["key"] === "k0")?.value.count).toBe(2);
  });
});

describe("Telemetry with process histograms", () => {
  it("records its durations there, and the registered SDK has none of its own to show twice", async () => {
    const histograms = Telemetry.createProcessHistograms();
    const reader = new OnDemandReader({ metricProducers: [producerOf(histograms)] });
    const provider = new MeterProvider({ readers: [reader] });
    const telemetry = new Telemetry({ meter: provider.getMeter("@jobtasks/server"), histograms });
    telemetry.instruments!.mcpDuration.record(0.003, "tasks/get", () => ({ "mcp.method.name": "tasks/get" }));
    telemetry.instruments!.httpDuration.record(0.004, "POST 200 /mcp", () => ({ "http.route": "/mcp" }));
    const { resourceMetrics } = await reader.collect();
    await provider.shutdown();
    const names = resourceMetrics.scopeMetrics.flatMap((scope) =>
      scope.metrics.map((metric) => metric.descriptor.name),
    );
    expect(names.filter((name) => name === "mcp.server.operation.duration")).toHaveLength(1);
    expect(names.filter((name) => name === "http.server.request.duration")).toHaveLength(1);
    const scope = resourceMetrics.scopeMetrics.find((scope) =>
      scope.metrics.some((metric) => metric.descriptor.name === "mcp.server.operation.duration"),
    );
    expect(scope?.scope.name).toBe("@jobtasks/server");
    expect(scope?.metrics.find((metric) => metric.descriptor.name === "mcp.server.operation.duration")).toMatchObject({
      descriptor: { unit: "s" },
      dataPoints: [{ attributes: { "mcp.method.name": "tasks/get" }, value: { count: 1, sum: 0.003 } }],
    });
  });
});
