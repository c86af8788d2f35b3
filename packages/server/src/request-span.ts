import {
  SpanKind,
  context,
  trace,
  type AttributeValue,
  type Attributes,
  type Context,
  type Span,
} from "@opentelemetry/api";
import { markFailed, type Telemetry } from "./telemetry.js";

/**
 * The server span of one MCP request, started at once or only when the request turns out to need it.
 *
 * A deferred span is how a poll answered from memory costs no tracing: its name, attributes and start
 * time wait here, and the span is started (at the request's start time) the first time something is
 * parented to it, which is a snapshot read that waits for the upstream, or when the request fails. A poll
 * that does neither ends with no span, as if sampled out, and is counted by the metrics alone.
 *
 * The request carries this object to what it calls (CallerContext.requestSpan) instead of entering it in
 * the async context: entering a context for every poll is most of what tracing would cost it.
 */
export class RequestSpan {
  readonly #telemetry: Telemetry;
  readonly #name: string;
  readonly #attributes: Attributes;
  readonly #parent: Context;
  /** performance.now() when the request began. */
  readonly #startedAt: number;
  readonly #deferred: boolean;
  #span: Span | undefined;
  #context: Context | undefined;
  #ended = false;

  /** `attributes` becomes the span's (it is written to until the span starts); `startedAt`: performance.now(). */
  constructor(
    telemetry: Telemetry,
    name: string,
    attributes: Attributes,
    parent: Context,
    options: { deferred: boolean; startedAt: number },
  ) {
    this.#telemetry = telemetry;
    this.#name = name;
    this.#attributes = attributes;
    this.#parent = parent;
    this.#startedAt = options.startedAt;
    this.#deferred = options.deferred;
    if (!options.deferred) this.#start();
  }

  /** Whether the span has been started (always, unless deferred and nothing needed it yet). */
  get started(): boolean {
    return this.#span !== undefined;
  }

  /**
   * The request's context with its span, started now if it was deferred: the parent of what it does. Once
   * the request has ended without a span, its parent's: a span started then would never end.
   */
  context(): Context {
    if (this.#context !== undefined) return this.#context;
    if (this.#ended && this.#span === undefined) return this.#parent;
    this.#context = trace.setSpan(this.#parent, this.#start());
    return this.#context;
  }

  /** Run `operation` in the request's context (starting its span): its spans and log lines are the request's. */
  run<T>(operation: () => T): T {
    return context.with(this.context(), operation);
  }

  setAttribute(key: string, value: AttributeValue): void {
    if (this.#span) this.#span.setAttribute(key, value);
    else this.#attributes[key] = value;
  }

  /** End the span; a failure (errorType) starts a deferred one first: a failing poll is worth its trace. */
  end(errorType?: string): void {
    if (this.#ended) return;
    this.#ended = true;
    const span = this.#span ?? (errorType !== undefined ? this.#start() : undefined);
    if (span === undefined) return;
    if (errorType !== undefined) markFailed(span, errorType);
    // A span given its start ends on the wall clock unless told otherwise; the same clock as its start.
    if (this.#deferred) span.end(performance.now());
    else span.end();
  }

  #start(): Span {
    // A deferred span is given the request's start as performance.now() read it, which the SDK reads as
    // such and corrects as it does its own clock; an epoch time would not be, once the wall clock drifts.
    this.#span ??= this.#telemetry.startSpan(this.#name, this.#attributes, {
      kind: SpanKind.SERVER,
      parent: this.#parent,
      ...(this.#deferred ? { startTime: this.#startedAt } : {}),
    });
    // startSpan answers undefined only when not tracing, and no RequestSpan is made then.
    return this.#span!;
  }
}
