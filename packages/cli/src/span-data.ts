import type { HrTime, Link, SpanContext, SpanKind, SpanStatus, Attributes } from "@opentelemetry/api";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace-base";

/**
 * A finished span as plain data, for the export worker (worker-span-exporter.ts): what a ReadableSpan
 * holds, with its methods and class instances (the span context's getter, a TraceState, the Resource) made
 * values that a structured clone keeps. `resource` indexes the batch's list of resources.
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
  scope: { name: string; version?: string | undefined; schemaUrl?: string | undefined };
  resource: number;
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

/** A batch as data: its spans, and the resources they point at (one, from jobtasks serve's provider). */
export function batchData(spans: readonly ReadableSpan[]): { spans: SpanData[]; resources: ResourceData[] } {
  const resources: ResourceData[] = [];
  const resourceIndex = new Map<ReadableSpan["resource"], number>();
  const indexOf = (resource: ReadableSpan["resource"]) => {
    let index = resourceIndex.get(resource);
    if (index === undefined) {
      index = resources.push({ attributes: resource.attributes, schemaUrl: resource.schemaUrl }) - 1;
      resourceIndex.set(resource, index);
    }
    return index;
  };
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
      scope: {
        name: span.instrumentationScope.name,
        version: span.instrumentationScope.version,
        schemaUrl: span.instrumentationScope.schemaUrl,
      },
      resource: indexOf(span.resource),
    })),
    resources,
  };
}

/** The batch again as ReadableSpans, for the OTLP exporter in the worker; spans of one resource share it. */
export function readableSpans(batch: { spans: SpanData[]; resources: ResourceData[] }): ReadableSpan[] {
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
        instrumentationScope: span.scope,
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
