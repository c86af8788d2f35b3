import type { HrTime, Link, SpanContext, SpanKind, SpanStatus, Attributes } from "@opentelemetry/api";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace-base";

/**
 * A finished span as plain data, for the export worker (worker-span-exporter.ts): what a ReadableSpan
 * holds, with its methods and class instances (the span context's getter, a TraceState, the Resource) made
 * values that a structured clone keeps. `resource` and `scope` index the batch's lists of them: the
 * exporters group spans by those objects, so spans that shared one must share one again in the worker.
 */
export interface SpanData {
  name: string;
  kind: SpanKind;
  context: ContextData;
  parent: ContextData | undefined;
  startTime: HrTime;
  endTime: HrTime;
  duration: HrTime;
  status: SpanStatus;
  attributes: Attributes;
  links: Array<{ context: ContextData; attributes?: Attributes | undefined; droppedAttributesCount?: number }>;
  events: TimedEvent[];
  droppedAttributesCount: number;
  droppedEventsCount: number;
  droppedLinksCount: number;
  scope: number;
  resource: number;
}

export interface ScopeData {
  name: string;
  version?: string | undefined;
  schemaUrl?: string | undefined;
}

/** A span context with its trace state written out (W3C tracestate text). */
export interface ContextData {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote: boolean | undefined;
  traceState: string | undefined;
}

export interface ResourceData {
  attributes: Attributes;
  schemaUrl: string | undefined;
}

export interface BatchData {
  spans: SpanData[];
  resources: ResourceData[];
  scopes: ScopeData[];
}

/** A batch as data: its spans, and the resources and scopes they point at (one each from jobtasks serve). */
export function batchData(spans: readonly ReadableSpan[]): BatchData {
  const resources = new IndexedList<ReadableSpan["resource"], ResourceData>((resource) => ({
    attributes: resource.attributes,
    schemaUrl: resource.schemaUrl,
  }));
  const scopes = new IndexedList<ReadableSpan["instrumentationScope"], ScopeData>((scope) => ({
    name: scope.name,
    version: scope.version,
    schemaUrl: scope.schemaUrl,
  }));
  return {
    spans: spans.map((span) => ({
      name: span.name,
      kind: span.kind,
      context: contextData(span.spanContext()),
      parent: span.parentSpanContext ? contextData(span.parentSpanContext) : undefined,
      startTime: span.startTime,
      endTime: span.endTime,
      duration: span.duration,
      status: span.status,
      attributes: span.attributes,
      links: span.links.map((link: Link) => ({
        context: contextData(link.context),
        attributes: link.attributes,
        ...(link.droppedAttributesCount !== undefined ? { droppedAttributesCount: link.droppedAttributesCount } : {}),
      })),
      events: span.events,
      droppedAttributesCount: span.droppedAttributesCount,
      droppedEventsCount: span.droppedEventsCount,
      droppedLinksCount: span.droppedLinksCount,
      scope: scopes.indexOf(span.instrumentationScope),
      resource: resources.indexOf(span.resource),
    })),
    resources: resources.items,
    scopes: scopes.items,
  };
}

/** The batch again as ReadableSpans, for the OTLP exporter in the worker; spans of one resource share it. */
export function readableSpans(batch: BatchData): ReadableSpan[] {
  const resources = batch.resources.map((resource) => ({
    attributes: resource.attributes,
    schemaUrl: resource.schemaUrl,
    asyncAttributesPending: false,
  }));
  return batch.spans.map(
    (span) =>
      ({
        name: span.name,
        kind: span.kind,
        spanContext: () => spanContext(span.context),
        parentSpanContext: span.parent ? spanContext(span.parent) : undefined,
        startTime: span.startTime,
        endTime: span.endTime,
        duration: span.duration,
        ended: true,
        status: span.status,
        attributes: span.attributes,
        links: span.links.map((link) => ({ ...link, context: spanContext(link.context) })),
        events: span.events,
        droppedAttributesCount: span.droppedAttributesCount,
        droppedEventsCount: span.droppedEventsCount,
        droppedLinksCount: span.droppedLinksCount,
        instrumentationScope: batch.scopes[span.scope],
        resource: resources[span.resource],
      }) as unknown as ReadableSpan,
  );
}

function contextData(context: SpanContext): ContextData {
  return {
    traceId: context.traceId,
    spanId: context.spanId,
    traceFlags: context.traceFlags,
    isRemote: context.isRemote,
    traceState: context.traceState?.serialize(),
  };
}

function spanContext(data: ContextData): SpanContext {
  const { traceState, ...rest } = data;
  // The exporters only serialize a trace state; the rest of the TraceState interface is never called.
  return {
    ...rest,
    ...(traceState !== undefined ? { traceState: { serialize: () => traceState } as SpanContext["traceState"] } : {}),
  } as SpanContext;
}

/** The distinct objects of a batch, each written as data once, by their first index. */
class IndexedList<T, Data> {
  readonly items: Data[] = [];
  readonly #indexes = new Map<T, number>();
  readonly #toData: (item: T) => Data;

  constructor(toData: (item: T) => Data) {
    this.#toData = toData;
  }

  indexOf(item: T): number {
    let index = this.#indexes.get(item);
    if (index === undefined) {
      index = this.items.push(this.#toData(item)) - 1;
      this.#indexes.set(item, index);
    }
    return index;
  }
}
