import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  createContextKey,
  createNoopMeter,
  isSpanContextValid,
  metrics,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Counter,
  type Meter,
  type Span,
  type Tracer,
  type UpDownCounter,
} from "@opentelemetry/api";
import { RequestSpan } from "./request-span.js";
import { TalliedCounter } from "./tallied-counter.js";
import { ApiHistogram, type DurationHistogram } from "./duration-histogram.js";
import { ProcessHistograms } from "./process-histograms.js";

/** The instrumentation scope of every span and metric the server records. */
export const instrumentationScope = "@jobtasks/server";

/** Bucket bounds (seconds) fit for both a cached tasks/get (sub-millisecond) and a slow upstream (30 s). */
const durationBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** How a snapshot read was answered: the span attribute and the metric label `jobtasks.snapshot.source`. */
export type SnapshotReadSource = "hit" | "miss" | "coalesced" | "held" | "finished" | "shared";

/** What a snapshot read tells its telemetry (SnapshotReader.read's options). */
export interface SnapshotReadObserver {
  /** How the read is answered, before it is; a later call replaces an earlier one. */
  answered(source: SnapshotReadSource): void;
  /** Runs the part of the read that may ask the upstream, where its requests find their parent span. */
  aroundUpstream?: (<T>(read: () => T) => T) | undefined;
}

/** The one method whose requests are polls: its spans wait until a poll needs the upstream (RequestSpan). */
const pollMethod = "tasks/get";

/** The adapter instance an upstream request is made for, carried in the OpenTelemetry context. */
export const adapterInstanceKey = createContextKey("jobtasks.adapter.instance");
/** How many times the server's reader sent this read before (its retries), for `http.request.resend_count`. */
export const resendCountKey = createContextKey("jobtasks.upstream.resend_count");

/**
 * What the server records, through the OpenTelemetry API only: a no-op until an SDK is registered. Which
 * halves are on is decided once, when the service is built, from what is registered then (a tracer that
 * gives valid span contexts, a meter provider that is not the no-op one): with neither, every method below
 * returns at its first line, so an embedding that registers nothing pays nothing.
 *
 * No attribute holds a task id, a job id, a principal or free text: tool names and adapter instances come
 * from the config, methods and statuses from fixed lists.
 */
export class Telemetry {
  readonly tracing: boolean;
  readonly metering: boolean;
  /** A span for every tasks/get, also one answered from memory (RequestSpan); off by default. */
  readonly tracesPollsFromMemory: boolean;
  readonly #tracer: Tracer;
  readonly #instruments: Instruments | undefined;

  /**
   * The duration histograms' store for a metrics reader to collect from, aggregated in the process (see
   * process-histograms.ts): give it to the reader (`metricProducers: [histograms.metricProducer(resource)]`)
   * and to the Telemetry (`histograms`), which then records its durations there instead of through the
   * registered SDK's histograms, at a fraction of their cost per request.
   */
  static createProcessHistograms(): ProcessHistograms {
    return new ProcessHistograms(instrumentationScope);
  }

  /**
   * `disabled`: record nothing whatever is registered (a benchmark's baseline). `tracePollsFromMemory`:
   * give every tasks/get a span, also one answered without the upstream (by default such a poll is
   * traced only when its caller's trace is sampled, or when it fails). `histograms`: where the duration
   * histograms go (createProcessHistograms), when a meter provider is registered; without it they are
   * the registered SDK's own.
   */
  constructor(
    options: {
      tracer?: Tracer;
      meter?: Meter;
      disabled?: boolean;
      tracePollsFromMemory?: boolean;
      histograms?: ProcessHistograms;
    } = {},
  ) {
    this.#tracer = options.tracer ?? trace.getTracer(instrumentationScope);
    const meter = options.meter ?? metrics.getMeter(instrumentationScope);
    this.tracesPollsFromMemory = options.tracePollsFromMemory ?? false;
    this.tracing = !options.disabled && producesSpans(this.#tracer);
    this.metering = !options.disabled && meter !== createNoopMeter();
    this.#instruments = this.metering ? createInstruments(meter, options.histograms) : undefined;
  }

  get enabled(): boolean {
    return this.tracing || this.metering;
  }

  get instruments(): Instruments | undefined {
    return this.#instruments;
  }

  /**
   * A gauge read at each collection: `read` reports the current values (a count, or one per attribute set).
   * Nothing is registered without a meter.
   */
  gauge(
    name: string,
    options: { description: string; unit: string },
    read: (report: (value: number, attributes?: Attributes) => void) => void,
  ): void {
    this.#instruments?.meter
      .createObservableGauge(name, options)
      .addCallback((result) => read((value, attributes) => result.observe(value, attributes)));
  }

  /**
   * Start a span (undefined when not tracing); `parent` defaults to the active context, `startTime` (a
   * performance.now() reading, which the SDK takes as one) to now.
   */
  startSpan(
    name: string,
    attributes: Attributes,
    options: { kind?: SpanKind; parent?: Context; startTime?: number } = {},
  ) {
    if (!this.tracing) return undefined;
    return this.#tracer.startSpan(
      name,
      {
        kind: options.kind ?? SpanKind.INTERNAL,
        attributes,
        ...(options.startTime !== undefined ? { startTime: options.startTime } : {}),
      },
      options.parent ?? context.active(),
    );
  }

  /**
   * The server span of an MCP request (undefined when not tracing), child of `parent`, begun at
   * `startedAt` (performance.now()); `attributes` become the span's. A tasks/get's is
   * deferred (see RequestSpan) unless every poll is to be traced or the caller's own trace is sampled:
   * a caller that traces its work sees the server's part of it.
   */
  requestSpan(
    method: string,
    name: string,
    attributes: Attributes,
    parent: Context,
    startedAt: number,
  ): RequestSpan | undefined {
    if (!this.tracing) return undefined;
    const deferred = method === pollMethod && !this.tracesPollsFromMemory && !isSampled(parent);
    return new RequestSpan(this, name, attributes, parent, { deferred, startedAt });
  }

  /**
   * Run `operation` in a span named `name`, child of `parent` (default the active context), which ends when
   * it settles; a rejection marks it as an error with `error.type` from `errorType`.
   */
  async inSpan<T>(
    name: string,
    attributes: Attributes,
    operation: (span: Span | undefined) => Promise<T>,
    options: { kind?: SpanKind; parent?: Context; errorType?: (error: unknown) => string } = {},
  ): Promise<T> {
    const span = this.startSpan(name, attributes, options);
    if (span === undefined) return operation(undefined);
    try {
      return await context.with(trace.setSpan(options.parent ?? context.active(), span), () => operation(span));
    } catch (error) {
      markFailed(span, options.errorType?.(error) ?? errorTypeOf(error));
      throw error;
    } finally {
      span.end();
    }
  }

  /** Run attempt `attempt` (1 for the first) of a status read, its retries counted in the context. */
  forAttempt<T>(attempt: number, operation: () => T): T {
    if (!this.enabled || attempt <= 1) return operation();
    return context.with(context.active().setValue(resendCountKey, attempt - 1), operation);
  }

  /** Run `operation` with the adapter instance in the context, for the upstream requests it makes. */
  forInstance<T>(instance: string, operation: () => T): T {
    if (!this.enabled) return operation();
    return context.with(context.active().setValue(adapterInstanceKey, instance), operation);
  }

  /**
   * A snapshot read, counted once, when it settles, by how it was answered. One that waits for the
   * upstream (a miss, said as the upstream is asked, or one that joined a read in flight) gets a child span
   * of its own, the upstream requests beside it; one answered otherwise (a hit, a hold, a finished job,
   * another replica's read or hold through Redis) costs no span: its source becomes an attribute of the
   * request's span. Polls are mostly answered so, and a span each would double what tracing costs them.
   * The last source given before the read settles is the one counted (a miss whose answer turned out to be
   * another replica's stays a miss: it asked); one that comes after (the caller stopped waiting) changes
   * nothing.
   *
   * `request`: the span of the request that reads, when it was handed over rather than made the active
   * context; the read's spans are parented to it, and its upstream part runs in its context.
   */
  snapshotRead<T>(
    instance: string,
    read: (observer: SnapshotReadObserver) => Promise<T>,
    request?: RequestSpan,
  ): Promise<T> {
    if (!this.enabled) return read(idleObserver);
    // Only spans need a parent: reading the active context is not free, and metrics alone do without it.
    const parent = this.tracing && request === undefined ? context.active() : undefined;
    let span: Span | undefined;
    let answeredBy: SnapshotReadSource | undefined;
    let settled = false;
    const answered = (source: SnapshotReadSource) => {
      if (settled) return;
      answeredBy = source;
      if (!this.tracing) return;
      if (span) span.setAttribute("jobtasks.snapshot.source", source);
      else if (source === "miss" || source === "coalesced")
        span = this.startSpan(
          "jobtasks.snapshot.read",
          { "jobtasks.adapter.instance": instance, "jobtasks.snapshot.source": source },
          { parent: request?.context() ?? parent! },
        );
      else if (request) request.setAttribute("jobtasks.snapshot.source", source);
      else trace.getSpan(parent!)?.setAttribute("jobtasks.snapshot.source", source);
    };
    const observer: SnapshotReadObserver = {
      answered,
      aroundUpstream: request ? (upstream) => request.run(upstream) : undefined,
    };
    const settle = () => {
      settled = true;
      span?.end();
      // One settled before any source was known gave up waiting on the shared cache (a slow answer, or the
      // caller left) before the upstream was asked: counted as the miss it was on its way to.
      this.#instruments?.snapshotReads.add(instance, answeredBy ?? "miss");
    };
    const failed = (error: unknown): never => {
      if (span) markFailed(span, errorTypeOf(error));
      settle();
      throw error;
    };
    // then() rather than an async function: one promise where that makes three (observeMcpRequest says why).
    let pending: Promise<T>;
    try {
      pending = read(observer);
    } catch (error) {
      return Promise.reject(error).catch(failed);
    }
    return pending.then((value) => {
      settle();
      return value;
    }, failed);
  }
}

const idleObserver: SnapshotReadObserver = { answered: () => undefined };

/** Whether a context holds a span its sampler kept (a caller's traceparent with the sampled flag). */
function isSampled(parent: Context): boolean {
  const spanContext = trace.getSpanContext(parent);
  return spanContext !== undefined && (spanContext.traceFlags & TraceFlags.SAMPLED) !== 0;
}

export function markFailed(span: Span, errorType: string): void {
  span.setAttribute("error.type", errorType);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** A failure's `error.type`: a JSON-RPC code when it has one, else its class name (never its message). */
export function errorTypeOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === "number") return String(code);
  if (error instanceof Error) return error.name || "Error";
  return "_OTHER";
}

/** The no-op tracer answers with invalid span contexts; an SDK's tracer never does (sampled or not). */
function producesSpans(tracer: Tracer): boolean {
  const probe = tracer.startSpan("jobtasks.probe", {}, ROOT_CONTEXT);
  return isSpanContextValid(probe.spanContext());
}

export interface Instruments {
  mcpDuration: DurationHistogram;
  httpDuration: DurationHistogram;
  tasksStarted: Counter;
  /** By adapter instance and task status. */
  taskReads: TalliedCounter;
  /** By adapter instance and source. */
  snapshotReads: TalliedCounter;
  upstreamDuration: DurationHistogram;
  webhookDeliveries: Counter;
  pushSubscribers: UpDownCounter;
  meter: Meter;
}

function createInstruments(meter: Meter, histograms: ProcessHistograms | undefined): Instruments {
  const seconds = (name: string, description: string): DurationHistogram =>
    histograms
      ? histograms.histogram(name, { description, unit: "s", boundaries: durationBuckets })
      : new ApiHistogram(
          meter.createHistogram(name, {
            description,
            unit: "s",
            advice: { explicitBucketBoundaries: durationBuckets },
          }),
        );
  return {
    meter,
    // The semantic conventions' names: MCP's operation duration and HTTP's server request duration.
    mcpDuration: seconds(
      "mcp.server.operation.duration",
      "MCP requests served, by method and outcome (error.type on failures)",
    ),
    httpDuration: seconds("http.server.request.duration", "HTTP requests served, by route and status"),
    tasksStarted: meter.createCounter("jobtasks.tasks.started", {
      description: "Tasks created, by tool and adapter instance",
      unit: "{task}",
    }),
    // Added to by every poll: tallied here, handed to the SDK when collected (tallied-counter.ts).
    taskReads: TalliedCounter.of(
      meter,
      "jobtasks.task.reads",
      { description: "Task reads answered (tasks/get, task_status, subscriptions), by status", unit: "{read}" },
      ["jobtasks.adapter.instance", "jobtasks.task.status"],
    ),
    snapshotReads: TalliedCounter.of(
      meter,
      "jobtasks.snapshot.reads",
      {
        description:
          "Snapshot reads, by how they were answered: hit (cache), miss (upstream), coalesced (joined a read in flight), held (Retry-After), finished, shared (another replica's read, through Redis)",
        unit: "{read}",
      },
      ["jobtasks.adapter.instance", "jobtasks.snapshot.source"],
    ),
    upstreamDuration: seconds(
      "jobtasks.upstream.request.duration",
      "HTTP requests to upstreams, by adapter instance, operation and status",
    ),
    webhookDeliveries: meter.createCounter("jobtasks.webhook.deliveries", {
      description: "Upstream event deliveries received, by adapter instance and outcome",
      unit: "{delivery}",
    }),
    pushSubscribers: meter.createUpDownCounter("jobtasks.push.subscribers", {
      description: "Task subscriptions (subscriptions/listen) open",
      unit: "{subscription}",
    }),
  };
}
