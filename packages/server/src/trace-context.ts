import { ROOT_CONTEXT, trace, type Context, type SpanContext } from "@opentelemetry/api";

/**
 * W3C trace context (`traceparent: 00-<trace id>-<span id>-<flags>`), read and written here rather than
 * through a registered propagator: the server continues a caller's trace, and passes its own to upstreams,
 * whatever an embedding registered, and an `_meta.traceparent` is read the same way as the HTTP header.
 */
const traceparentPattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The caller's span as the parent context, or undefined when the value is absent or malformed. */
export function contextFromTraceparent(value: unknown): Context | undefined {
  if (typeof value !== "string") return undefined;
  const match = traceparentPattern.exec(value.trim().toLowerCase());
  if (!match) return undefined;
  const [, traceId, spanId, flags] = match as unknown as [string, string, string, string];
  // All-zero ids are invalid by the specification: such a header starts a new trace instead.
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  const spanContext: SpanContext = { traceId, spanId, traceFlags: Number.parseInt(flags, 16) & 1, isRemote: true };
  return trace.setSpanContext(ROOT_CONTEXT, spanContext);
}

/** The `traceparent` header for a span, for the request it makes. */
export function traceparentOf(spanContext: SpanContext): string {
  return `00-${spanContext.traceId}-${spanContext.spanId}-0${spanContext.traceFlags & 1}`;
}
