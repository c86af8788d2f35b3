import type { IncomingMessage, ServerResponse } from "node:http";
import { context } from "@opentelemetry/api";
import type { Telemetry } from "./telemetry.js";
import { contextFromTraceparent } from "./trace-context.js";
import { hooksPathPrefix } from "./http-event-endpoint.js";

const knownMethods = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"]);

/**
 * `http.server.request.duration` for one HTTP request, recorded when its answer is written, by method,
 * route (a template: "/hooks/{instance}", never the path sent) and status; and the request's
 * `traceparent` header made the active context for `handle`, so that its MCP span continues the caller's
 * trace (an `_meta.traceparent` wins over it, see mcp-request-telemetry.ts).
 */
export function withHttpTelemetry<T>(
  telemetry: Telemetry,
  request: IncomingMessage,
  response: ServerResponse,
  route: string | undefined,
  handle: () => Promise<T>,
): Promise<T> {
  if (!telemetry.enabled) return handle();
  const startedAt = performance.now();
  const method = knownMethods.has(request.method ?? "") ? (request.method as string) : "_OTHER";
  response.once("finish", () => {
    telemetry.instruments?.httpDuration.record((performance.now() - startedAt) / 1000, {
      "http.request.method": method,
      "http.response.status_code": response.statusCode,
      ...(route !== undefined ? { "http.route": route } : {}),
      ...(response.statusCode >= 500 ? { "error.type": String(response.statusCode) } : {}),
    });
  });
  const caller = telemetry.tracing ? contextFromTraceparent(request.headers.traceparent) : undefined;
  return caller ? context.with(caller, handle) : handle();
}

/** A request's `http.route`: one of the server's paths, the hooks' template, or undefined for any other path. */
export function httpRouteOf(request: IncomingMessage, routes: ReadonlySet<string>): string | undefined {
  const path = (request.url ?? "/").split("?")[0] ?? "/";
  if (path.startsWith(hooksPathPrefix)) return `${hooksPathPrefix}{instance}`;
  return routes.has(path) ? path : undefined;
}
