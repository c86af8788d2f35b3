import type { GrantedScopes } from "./access-policy.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import { runTaskSubscription, type TaskListenRequest } from "./task-subscription.js";
import { writeJson } from "./http-responses.js";
import { classifyHttpRequest } from "./mcp-param-headers.js";
import type { TaskService } from "./task-service.js";
import type { Logger } from "./logger.js";

export interface HttpTaskListenOptions {
  listen: TaskListenRequest;
  body: unknown;
  request: IncomingMessage;
  response: ServerResponse;
  principal: string;
  scopes?: GrantedScopes;
  service: TaskService;
  logger: Logger;
  intervalMs?: number;
}

/**
 * Serve a task subscription over Streamable HTTP as an SSE stream. Returns false when the request is not
 * a modern one, for the SDK's legacy serving to answer.
 */
export function serveHttpTaskListen(options: HttpTaskListenOptions): boolean {
  const { listen, request, response } = options;
  // The SDK's checks of a modern request (the headers agree with the body, the protocol version) apply
  // here too: a router in front trusts those headers.
  const classified = classifyHttpRequest(options.body, request.headers);
  if (classified.kind === "legacy") return false;
  if (classified.kind === "reject") {
    const data = classified.data !== undefined ? { data: classified.data } : {};
    writeJson(response, classified.httpStatus, {
      jsonrpc: "2.0",
      id: listen.id,
      error: { code: classified.code, message: classified.message, ...data },
    });
    return true;
  }
  // The SDK checks the header's presence later, in its own handler, which this request never reaches.
  if (request.headers["mcp-method"] === undefined) {
    writeJson(response, 400, {
      jsonrpc: "2.0",
      id: listen.id,
      error: {
        code: -32020,
        message:
          "Bad Request: the request headers and body disagree: the body names method subscriptions/listen but the required Mcp-Method header is absent",
      },
    });
    return true;
  }

  const abort = new AbortController();
  response.on("close", () => abort.abort());
  const common = {
    service: options.service,
    logger: options.logger,
    principal: options.principal,
    ...(options.scopes !== undefined ? { scopes: options.scopes } : {}),
    request: listen,
    signal: abort.signal,
    ...(options.intervalMs !== undefined ? { intervalMs: options.intervalMs } : {}),
  };
  if (!listen.declaresTasks) {
    // A refusal is one JSON answer, not a stream.
    void runTaskSubscription({ ...common, send: (message) => writeJson(response, 200, message) });
    return true;
  }
  response.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
  });
  const keepAlive = setInterval(() => response.write(": keepalive\n\n"), 15_000);
  keepAlive.unref();
  void runTaskSubscription({
    ...common,
    send: (message) => {
      if (!response.writableEnded) response.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    },
  }).finally(() => {
    clearInterval(keepAlive);
    if (!response.writableEnded) response.end();
  });
  return true;
}
