import { ValueType, type Attributes, type HrTime } from "@opentelemetry/api";

/**
 * Duration histograms aggregated here, in the process, and handed to the metrics SDK's reader at each
 * collection as a MetricProducer (`metricProducer`), for the histograms every request records to.
 *
 * The SDK's own histogram finds a recording's series by sorting and serialising its attribute set, reads
 * the active context and the clock, and runs its attribute processors, on every record: about a microsecond
 * a request for the two a poll records, most of what metrics cost it. Here a record is a map lookup by a
 * key the caller builds from the same short fixed lists, a bucket search and four additions; what a scrape
 * shows is the same cumulative histogram, with the same names, units, buckets and attribute sets.
 *
 * The data handed over has the shape of the SDK's (`ScopeMetrics` with `HistogramMetricData`); this package
 * depends on the OpenTelemetry API only, so the SDK's enums are given by value below.
 */

/** AggregationTemporality.CUMULATIVE and DataPointType.HISTOGRAM of @opentelemetry/sdk-metrics. */
const cumulative = 1 as const;
const histogramPoints = 0 as const;

/** Series past this many in one histogram go to one overflow series, as the SDK's cardinality limit does. */
const defaultMaxSeries = 2000;
const overflowKey = "\u0000overflow";
const overflowAttributes: Attributes = Object.freeze({ "otel.metric.overflow": true });

export interface ProcessHistogramOptions {
  description: string;
  unit: string;
  /** Inclusive upper bounds of the buckets, ascending; a last bucket takes everything above. */
  boundaries: readonly number[];
}

/** One histogram's data at a collection, as the SDK's HistogramMetricData. */
export interface CollectedHistogram {
  descriptor: { name: string; description: string; unit: string; valueType: ValueType };
  aggregationTemporality: typeof cumulative;
  dataPointType: typeof histogramPoints;
  dataPoints: Array<{
    startTime: HrTime;
    endTime: HrTime;
    attributes: Attributes;
    value: {
      buckets: { boundaries: number[]; counts: number[] };
      sum: number;
      count: number;
      min?: number;
      max?: number;
    };
  }>;
}

/** What a reader collects from a MetricProducer, with the resource the producer was given. */
export interface ProducedMetrics<Resource> {
  resourceMetrics: {
    resource: Resource;
    scopeMetrics: Array<{ scope: { name: string }; metrics: CollectedHistogram[] }>;
  };
  errors: unknown[];
}

/** The histograms of one instrumentation scope; one histogram per name, however often it is asked for. */
export class ProcessHistograms {
  readonly #scope: string;
  readonly #histograms = new Map<string, ProcessHistogram>();

  constructor(scope: string) {
    this.#scope = scope;
  }

  /** The histogram `name`: made on the first call, the same one after (two task services share it). */
  histogram(name: string, options: ProcessHistogramOptions): ProcessHistogram {
    let histogram = this.#histograms.get(name);
    if (histogram === undefined) this.#histograms.set(name, (histogram = new ProcessHistogram(name, options)));
    return histogram;
  }

  /**
   * A MetricProducer for the SDK's reader (`new PrometheusExporter({ metricProducers: [...] })`, any
   * MetricReader's `metricProducers`). The reader keeps its own resource and takes the scope metrics only;
   * `resource` is there for the shape of the answer.
   */
  metricProducer<Resource>(resource: Resource): { collect(): Promise<ProducedMetrics<Resource>> } {
    return {
      collect: async () => ({
        resourceMetrics: { resource, scopeMetrics: [{ scope: { name: this.#scope }, metrics: this.collect() }] },
        errors: [],
      }),
    };
  }

  /** Every histogram that has a recording, as the SDK's data (copies: the exporter may keep them). */
  collect(): CollectedHistogram[] {
    const endTime = hrTimeNow();
    const collected: CollectedHistogram[] = [];
    for (const histogram of this.#histograms.values()) {
      const data = histogram.collect(endTime);
      if (data.dataPoints.length > 0) collected.push(data);
    }
    return collected;
  }
}

export class ProcessHistogram {
  readonly #name: string;
  readonly #options: ProcessHistogramOptions;
  readonly #boundaries: readonly number[];
  readonly #series = new Map<string, HistogramSeries>();
  readonly #maxSeries: number;

  constructor(name: string, options: ProcessHistogramOptions, maxSeries = defaultMaxSeries) {
    this.#name = name;
    this.#options = options;
    this.#boundaries = [...options.boundaries];
    this.#maxSeries = maxSeries;
  }

  /**
   * Record `value` in the series `key` names. `attributes` makes that series' attribute set, called the
   * first time the key is seen; the key must say everything the set holds (two sets under one key would be
   * counted as the first).
   */
  record(value: number, key: string, attributes: () => Attributes): void {
    // As the SDK's histogram: a negative value (or NaN) is not a duration, and is dropped.
    if (!(value >= 0)) return;
    let series = this.#series.get(key);
    if (series === undefined) {
      const full = this.#series.size >= this.#maxSeries;
      series = full ? this.#series.get(overflowKey) : undefined;
      if (series === undefined) {
        series = new HistogramSeries(full ? overflowAttributes : Object.freeze(attributes()), this.#boundaries);
        this.#series.set(full ? overflowKey : key, series);
      }
    }
    series.record(value);
  }

  collect(endTime: HrTime): CollectedHistogram {
    const { description, unit } = this.#options;
    return {
      descriptor: { name: this.#name, description, unit, valueType: ValueType.DOUBLE },
      aggregationTemporality: cumulative,
      dataPointType: histogramPoints,
      dataPoints: [...this.#series.values()].map((series) => series.point(this.#boundaries, endTime)),
    };
  }
}

/** One attribute set's buckets, count, sum, min and max since the process started. */
class HistogramSeries {
  readonly attributes: Attributes;
  readonly #counts: number[];
  readonly #startTime = hrTimeNow();
  readonly #boundaries: readonly number[];
  #count = 0;
  #sum = 0;
  #min = Infinity;
  #max = -Infinity;

  constructor(attributes: Attributes, boundaries: readonly number[]) {
    this.attributes = attributes;
    this.#boundaries = boundaries;
    this.#counts = Array.from({ length: boundaries.length + 1 }, () => 0);
  }

  record(value: number): void {
    this.#count += 1;
    this.#sum += value;
    if (value < this.#min) this.#min = value;
    if (value > this.#max) this.#max = value;
    // The first bucket whose bound is at least the value (bounds are inclusive), by binary search.
    const boundaries = this.#boundaries;
    let low = 0;
    let high = boundaries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (boundaries[middle]! < value) low = middle + 1;
      else high = middle;
    }
    this.#counts[low]! += 1;
  }

  point(boundaries: readonly number[], endTime: HrTime): CollectedHistogram["dataPoints"][number] {
    return {
      startTime: this.#startTime,
      endTime,
      attributes: this.attributes,
      value: {
        buckets: { boundaries: [...boundaries], counts: [...this.#counts] },
        sum: this.#sum,
        count: this.#count,
        min: this.#min,
        max: this.#max,
      },
    };
  }
}

/** Now as the SDK's HrTime: [seconds, nanoseconds] since the epoch. */
function hrTimeNow(): HrTime {
  const milliseconds = Date.now();
  return [Math.floor(milliseconds / 1000), (milliseconds % 1000) * 1_000_000];
}
