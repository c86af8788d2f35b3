import type { IncomingMessage, ServerResponse } from "node:http";
import { context } from "@opentelemetry/api";
import type { Telemetry } from "./telemetry.js";
import { contextFromTraceparent } from "./trace-context.js";
import { hooksPathPrefix } from "./http-event-endpoint.js";

const knownMethods = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"]);

/**
 * `http.server.request.duration` for one HTTP request, recorded when its answer is written, by method,
 * route (one of `routes`, or a template: "/hooks/{instance}", never the path sent) and status; and the request's
 * `traceparent` header made the active context for `handle`, so that its MCP span continues the caller's
 * trace (an `_meta.traceparent` wins over it, see mcp-request-telemetry.ts).
 *
 * An answer already ended when `handle` settles (every JSON answer) is recorded then; only one still
 * being written (an event stream, or an error answered after `handle` failed) waits for its "finish".
 * A listener on every response would cost a poll more than the record itself.
 */
export function withHttpTelemetry<T>(
  telemetry: Telemetry,
  request: IncomingMessage,
  response: ServerResponse,
  routes: ReadonlySet<string>,
  handle: () => Promise<T>,
): Promise<T> {
  if (!telemetry.enabled) return handle();
  const startedAt = performance.now();
  const method = knownMethods.has(request.method ?? "") ? (request.method as string) : "_OTHER";
  const record = () => {
    const status = response.statusCode;
    const route = httpRouteOf(request, routes);
    // By method, status and route: each from a short fixed list (httpRouteOf gives templates only).
    telemetry.instruments?.httpDuration.record(
      (performance.now() - startedAt) / 1000,
      `${method} ${status} ${route ?? ""}`,
      () => ({
        "http.request.method": method,
        "http.response.status_code": status,
        ...(route !== undefined ? { "http.route": route } : {}),
        ...(status >= 500 ? { "error.type": String(status) } : {}),
      }),
    );
  };
  const recordWhenWritten = () => {
    if (response.writableEnded) record();
    else response.once("finish", record);
  };
  const caller = telemetry.tracing ? contextFromTraceparent(request.headers.traceparent) : undefined;
  // then() rather than finally(), which makes three promises for the one here (read-json-body.ts says why
  // a request's promises count).
  return (caller ? context.with(caller, handle) : handle()).then(
    (value) => {
      recordWhenWritten();
      return value;
    },
    (error: unknown) => {
      recordWhenWritten();
      throw error;
    },
  );
}

/** A request's `http.route`: one of the server's paths, the hooks' template, or undefined for any other path. */
export function httpRouteOf(request: IncomingMessage, routes: ReadonlySet<string>): string | undefined {
  const path = (request.url ?? "/").split("?")[0] ?? "/";
  if (path.startsWith(hooksPathPrefix)) return `${hooksPathPrefix}{instance}`;
  return routes.has(path) ? path : undefined;
}
