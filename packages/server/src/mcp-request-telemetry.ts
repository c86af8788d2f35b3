import { context } from "@opentelemetry/api";
import type { Server, ServerContext } from "@modelcontextprotocol/server";
import { errorTypeOf, type Telemetry } from "./telemetry.js";
import type { RequestSpan } from "./request-span.js";
import { contextFromTraceparent } from "./trace-context.js";

export interface McpRequestFacts {
  /** tools/call: the tool's name, when the server has such a tool (an unknown name is free text). */
  toolName?: string | undefined;
  /** The request's `_meta`, where a caller's `traceparent` may be. */
  meta?: unknown;
}

/**
 * One MCP request: a server span named by its method (and tool), child of the caller's `traceparent`
 * (`_meta`, else the active context, which the HTTP entry sets from the header), and the semantic
 * conventions' `mcp.server.operation.duration` by method and `error.type` (the JSON-RPC code of a
 * failure, `tool_error` for a tool result with isError). A task answer adds its status to the span.
 *
 * The span is the active context while the request runs, except a poll's (tasks/get), which may never
 * start (RequestSpan): that one is handed to `operation`, which passes it on to the snapshot read.
 *
 * Written with then() rather than as an async function: one promise where that makes three, and every
 * promise costs the async context's hooks on Node 20 and 22 (read-json-body.ts).
 */
export function observeMcpRequest<T>(
  telemetry: Telemetry,
  method: string,
  facts: McpRequestFacts,
  operation: (requestSpan: RequestSpan | undefined) => Promise<T>,
): Promise<T> {
  if (!telemetry.enabled) return operation(undefined);
  const traceparent = (facts.meta as { traceparent?: unknown } | undefined)?.traceparent;
  const parent = telemetry.tracing ? (contextFromTraceparent(traceparent) ?? context.active()) : undefined;
  // The tool names the span only: as a label of a histogram (18 series per value in Prometheus) a hundred
  // tools would cost 1,800 series; tasks started by tool are counted in jobtasks.tasks.started instead.
  const startedAt = performance.now();
  const span = parent
    ? telemetry.requestSpan(
        method,
        facts.toolName !== undefined ? `${method} ${facts.toolName}` : method,
        facts.toolName !== undefined
          ? { "mcp.method.name": method, "gen_ai.tool.name": facts.toolName }
          : { "mcp.method.name": method },
        parent,
        startedAt,
      )
    : undefined;
  const finish = (errorType: string | undefined) => {
    recordOperation(telemetry, (performance.now() - startedAt) / 1000, method, errorType);
    span?.end(errorType);
  };
  const failed = (error: unknown): never => {
    finish(errorTypeOf(error));
    throw error;
  };
  let pending: Promise<T>;
  try {
    pending = span?.started ? context.with(span.context(), operation, undefined, span) : operation(span);
  } catch (error) {
    // Thrown before it returned a promise: a rejection all the same, as from an async function.
    return Promise.reject(error).catch(failed);
  }
  return pending.then((result) => {
    const answer = result as { isError?: unknown; status?: unknown; task?: { status?: unknown } } | undefined;
    const status = answer?.task?.status ?? answer?.status;
    if (typeof status === "string") span?.setAttribute("jobtasks.task.status", status);
    finish(answer?.isError === true ? "tool_error" : undefined);
    return result;
  }, failed);
}

/** The histogram's series: a method and an outcome, from short fixed lists. */
function recordOperation(telemetry: Telemetry, seconds: number, method: string, errorType: string | undefined): void {
  const histogram = telemetry.instruments?.mcpDuration;
  if (errorType === undefined) histogram?.record(seconds, method, () => ({ "mcp.method.name": method }));
  else
    histogram?.record(seconds, `${method} ${errorType}`, () => ({
      "mcp.method.name": method,
      "error.type": errorType,
    }));
}

type RequestHandler = (request: unknown, context: ServerContext) => Promise<unknown>;

/** Each SDK request's span, for its handler to pass on (requestSpanOf): the SDK's context has no room for it. */
const handedOver = new WeakMap<ServerContext, RequestSpan>();

/** The span of the request a handler serves, as observeRequestHandlers handed it over; undefined when not tracing. */
export function requestSpanOf(handlerContext: ServerContext): RequestSpan | undefined {
  return handedOver.get(handlerContext);
}

/**
 * Every request handler set on this SDK server instance (ours and the SDK's own, which it sets after the
 * factory returns) runs inside observeMcpRequest. Nothing is wrapped when telemetry is off.
 */
export function observeRequestHandlers(server: Server, telemetry: Telemetry, isTool: (name: string) => boolean) {
  if (!telemetry.enabled) return;
  const setHandler = server.setRequestHandler.bind(server) as (method: string, ...rest: unknown[]) => void;
  const wrapping = (method: string, ...rest: unknown[]): void => {
    const handler = rest.at(-1);
    if (typeof handler !== "function") {
      setHandler(method, ...rest);
      return;
    }
    const observed: RequestHandler = (request, handlerContext) => {
      // Two-argument handlers get the request, three-argument ones its params.
      const params = ((request as { params?: unknown }).params ?? request) as { name?: unknown; _meta?: unknown };
      const name =
        method === "tools/call" && typeof params.name === "string" && isTool(params.name) ? params.name : undefined;
      const meta = (handlerContext.mcpReq as { _meta?: unknown })._meta ?? params._meta;
      return observeMcpRequest(telemetry, method, { toolName: name, meta }, (requestSpan) => {
        if (requestSpan) handedOver.set(handlerContext, requestSpan);
        return (handler as RequestHandler)(request, handlerContext);
      });
    };
    setHandler(method, ...rest.slice(0, -1), observed);
  };
  (server as unknown as { setRequestHandler: typeof wrapping }).setRequestHandler = wrapping;
}
