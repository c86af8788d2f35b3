import { describe, expect, it } from "vitest";
import { AggregationTemporality, DataPointType, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { TalliedCounter } from "./tallied-counter.js";

/** A reader that collects on demand, as a Prometheus scrape does. */
class OnDemandReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

async function collected(reader: OnDemandReader) {
  const { resourceMetrics } = await reader.collect();
  const metric = resourceMetrics.scopeMetrics[0]?.metrics[0];
  expect(metric?.dataPointType).toBe(DataPointType.SUM);
  expect(metric?.descriptor).toMatchObject({ name: "jobtasks.test.reads", unit: "{read}" });
  expect((metric as { isMonotonic?: boolean } | undefined)?.isMonotonic).toBe(true);
  return (metric?.dataPoints ?? []).map((point) => [point.attributes, point.value]);
}

describe("TalliedCounter", () => {
  it("hands the SDK a monotonic count per pair of label values at each collection", async () => {
    const reader = new OnDemandReader();
    const provider = new MeterProvider({ readers: [reader] });
    const counter = TalliedCounter.of(
      provider.getMeter("test"),
      "jobtasks.test.reads",
      { description: "reads", unit: "{read}" },
      ["instance", "status"],
    );
    counter.add("a", "working");
    counter.add("a", "working");
    counter.add("a", "completed");
    counter.add("b", "working");
    expect(await collected(reader)).toEqual([
      [{ instance: "a", status: "working" }, 2],
      [{ instance: "a", status: "completed" }, 1],
      [{ instance: "b", status: "working" }, 1],
    ]);
    // Cumulative, as a counter's series are: the next scrape sees the totals so far.
    counter.add("a", "working");
    expect(await collected(reader)).toContainEqual([{ instance: "a", status: "working" }, 3]);
    await provider.shutdown();
  });

  it("is one per meter and name, so that two services' reads add up", async () => {
    const reader = new OnDemandReader();
    const provider = new MeterProvider({ readers: [reader] });
    const meter = provider.getMeter("test");
    const options = { description: "reads", unit: "{read}" };
    const first = TalliedCounter.of(meter, "jobtasks.test.reads", options, ["instance", "status"]);
    const second = TalliedCounter.of(meter, "jobtasks.test.reads", options, ["instance", "status"]);
    expect(second).toBe(first);
    first.add("a", "working");
    first.add("a", "working");
    first.add("a", "working");
    second.add("a", "working");
    second.add("a", "working");
    expect(await collected(reader)).toEqual([[{ instance: "a", status: "working" }, 5]]);
    await provider.shutdown();
  });
});
