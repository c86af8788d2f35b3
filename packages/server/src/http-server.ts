import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { ConfigError } from "@jobtasks/core";
import type { AddressInfo } from "node:net";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { localPrincipal, type BearerTokens } from "./auth.js";
import type { AuthenticatedCaller } from "./access-policy.js";
import { HttpAuthentication, type HttpAuthenticationOptions } from "./http-authentication.js";
import { scopesMissingFor } from "./http-authorization.js";
import type { OAuthAuthenticator } from "./oauth/oauth-authenticator.js";
import { createMcpServer } from "./mcp-server.js";
import type { TaskService } from "./task-service.js";
import { serveHttpTaskListen } from "./http-task-listen.js";
import { rpcError, writeJson, writeRefusal } from "./http-responses.js";
import { createRequestGuard, parseAllowedOrigins } from "./request-guard.js";
import { readJsonBody } from "./read-json-body.js";
import { createFastTasksGet } from "./fast-tasks-get.js";
import { routeRequest } from "./request-dispatch.js";
import { stripTaskResultContentFromResponse } from "./strip-task-result-content.js";
import type { Logger } from "./logger.js";
import { EventReceiver } from "./event-receiver.js";
import { hooksPathPrefix, serveEventDelivery } from "./http-event-endpoint.js";
import type { MetricsEndpoint } from "./metrics-endpoint.js";
import { withHttpTelemetry } from "./http-telemetry.js";
import { observeMcpRequest } from "./mcp-request-telemetry.js";

export interface HttpServerOptions {
  service: TaskService;
  logger: Logger;
  name: string;
  version: string;
  instructions?: string;
  /** Default 127.0.0.1. Binding elsewhere exposes the server: configure tokens. */
  host?: string;
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** When set, every request needs `Authorization: Bearer <token>`; the token's name is the principal. */
  tokens?: BearerTokens;
  /** With tokens: per principal, the only scopes its token grants (a principal not listed holds every scope). */
  tokenScopes?: HttpAuthenticationOptions["tokenScopes"];
  /**
   * Instead of tokens: OAuth access tokens of this issuer (see oauth/oauth-authenticator.ts). `resource`
   * defaults to the URL the server listens at, which is right only when clients reach it there.
   */
  oauth?: HttpAuthenticationOptions["oauth"];
  /** Default "/mcp". */
  path?: string;
  /** How often task subscriptions re-read their tasks. Default 1000 ms. */
  subscriptionIntervalMs?: number;
  /**
   * Origins (`https://app.example.com`) whose browser pages may call the server. A request with another
   * Origin gets 403; a loopback server also accepts loopback origins. Requests without one are not affected.
   */
  allowedOrigins?: readonly string[];
  /** Answer well-formed tasks/get without the per-request SDK server (fast-tasks-get.ts). Default true. */
  fastTasksGet?: boolean;
  /**
   * On close, how long open waits and answers already being written may take in all before their
   * connections are cut (a call held by an upstream that never answers is cut then). Default 5 s.
   */
  closeGraceMs?: number;
  /** How long a delivery id of an upstream event is remembered (a repeat has no effect). Default 24 h. */
  deliveryMemoryMs?: number;
  /** Serve `GET /metrics` on this port too (createMetricsEndpoint); off when absent. */
  metrics?: MetricsEndpoint;
}

/** Every request reaches the MCP handler through route(), which sets the caller; never guess one. */
function callerOf(authInfo: { extra?: Record<string, unknown> } | undefined, required: boolean): AuthenticatedCaller {
  const caller = authInfo?.extra?.["caller"] as AuthenticatedCaller | undefined;
  if (caller) return caller;
  if (required) throw new Error("an MCP request arrived without an authenticated principal");
  return { principal: localPrincipal, scopes: undefined };
}

export interface RunningHttpServer {
  url: string;
  port: number;
  /** Who may call, for the start-up log (no secret in it). */
  auth: string;
  /** The OAuth token check, when configured (its request counts are read by tests and benchmarks). */
  oauth?: OAuthAuthenticator;
  close(): Promise<void>;
}

/**
 * Serve MCP over Streamable HTTP at /mcp, plus /healthz and /readyz for orchestrators, `POST /hooks/<instance>`
 * for upstream events and, when configured, /metrics.
 */
export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const { service, logger } = options;
  const host = options.host ?? "127.0.0.1";
  const path = options.path ?? "/mcp";
  const authentication = new HttpAuthentication(options);
  const guard = createRequestGuard({ host, allowedOrigins: parseAllowedOrigins(options.allowedOrigins ?? []) });
  const handler = createMcpHandler(
    ({ authInfo, era }) => {
      const caller = callerOf(authInfo, authentication.required);
      return createMcpServer({
        era,
        name: options.name,
        version: options.version,
        ...(options.instructions ? { instructions: options.instructions } : {}),
        service,
        logger,
        principal: caller.principal,
        ...(caller.scopes !== undefined ? { scopes: caller.scopes } : {}),
      });
    },
    { onerror: (error) => logger.debug({ err: error }, "MCP request rejected") },
  );
  const serveMcp = toNodeHandler(
    {
      fetch: async (request, requestOptions) =>
        stripTaskResultContentFromResponse(request, await handler.fetch(request, requestOptions)),
    },
    { onerror: (error) => logger.error({ err: error }, "MCP handler failed") },
  );

  // Pollers' tasks/get skips the per-request SDK server when it is well formed beyond doubt (see the file).
  const fastTasksGet =
    options.fastTasksGet === false
      ? undefined
      : createFastTasksGet({ service, serverInfo: { name: options.name, version: options.version } });
  const inputSchemaOf = (name: string) => service.registry.tool(name)?.descriptor.inputSchema;
  const events = new EventReceiver({
    service,
    logger,
    ...(options.deliveryMemoryMs !== undefined ? { deliveryMemoryMs: options.deliveryMemoryMs } : {}),
  });

  /** Requests (tools/call, tasks/get, ...) still being answered: on close they finish before connections are cut. */
  const answering = new Set<ServerResponse>();

  const routes = new Set([path, "/healthz", "/readyz", ...(options.metrics ? ["/metrics"] : [])]);
  const observedRoute = (request: IncomingMessage, response: ServerResponse) =>
    withHttpTelemetry(service.telemetry, request, response, routes, () => route(request, response));
  const server = createServer((request, response) => {
    void observedRoute(request, response).catch((error: unknown) => {
      logger.error({ err: error }, "HTTP request failed");
      if (!response.headersSent) writeJson(response, 500, rpcError(-32603, "Internal error"));
      else response.end();
    });
  });

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://localhost");
    // Unauthenticated, for orchestrators: the process serves (healthz) and may be sent traffic (readyz).
    if (url.pathname === "/healthz") {
      writeJson(response, 200, { ok: true });
      return;
    }
    if (url.pathname === "/readyz") {
      const state = await service.readiness.state();
      if (state.ready) writeJson(response, 200, { ok: true });
      else writeJson(response, 503, { ok: false, reason: state.reason });
      return;
    }
    if (url.pathname === "/metrics" && options.metrics) {
      await options.metrics.serve(request, response);
      return;
    }
    // Upstream deliveries are not MCP: their signature, checked by the adapter, is their authentication.
    if (url.pathname.startsWith(hooksPathPrefix)) {
      await serveEventDelivery(request, response, events, logger);
      return;
    }
    if (authentication.serveMetadata(response, url.pathname, path, service.access.scopesNamed)) return;
    if (url.pathname !== path) {
      writeJson(response, 404, rpcError(-32601, `Not found: the MCP endpoint is ${path}`));
      return;
    }
    const refusal = guard.refusal(request);
    if (refusal !== undefined) {
      writeRefusal(response, 403, rpcError(-32000, refusal));
      return;
    }
    const authenticated = authentication.authenticate(request, response, logger, service.access.toolScopesNamed);
    const caller = authenticated instanceof Promise ? await authenticated : authenticated;
    if (caller === undefined) return;
    const { principal } = caller;
    // The token goes no further than the authentication: the SDK, the adapters and the logs see the caller.
    (request as IncomingMessage & { auth?: unknown }).auth = {
      token: "",
      clientId: principal,
      scopes: caller.scopes ? [...caller.scopes] : [],
      extra: { caller },
    };
    if (request.method !== "POST") {
      await serveMcp(request as never, response);
      return;
    }
    // Read the body once: routeRequest says which scope check it needs and what is served here; everything
    // else goes on to the SDK.
    const body = await readJsonBody(request);
    if (!body.ok && "clientGone" in body) {
      logger.debug({ path }, "the client closed the connection before its request body arrived");
      return;
    }
    if (!body.ok) {
      // A body too large is refused unread: the connection is closed rather than drained.
      if (body.status === 413) writeRefusal(response, body.status, rpcError(body.code, body.message));
      else writeJson(response, body.status, rpcError(body.code, body.message));
      return;
    }
    const route = routeRequest(body.value, { headers: request.headers, inputSchemaOf, fastTasksGet });
    // The scope check comes before the route is followed: a caller without the scope hears that first.
    const missing = scopesMissingFor(route.scope, caller, service);
    if (missing !== undefined) {
      authentication.refuseMissingScopes(response, missing);
      return;
    }
    if (route.kind === "refuse") {
      writeJson(response, route.httpStatus, route.answer);
      return;
    }
    if (
      route.kind === "listen" &&
      serveHttpTaskListen({
        listen: route.listen,
        body: body.value,
        request,
        response,
        principal,
        ...(caller.scopes !== undefined ? { scopes: caller.scopes } : {}),
        service,
        logger,
        ...(options.subscriptionIntervalMs !== undefined ? { intervalMs: options.subscriptionIntervalMs } : {}),
      })
    ) {
      return;
    }
    answering.add(response);
    response.once("close", () => answering.delete(response));
    if (route.kind === "fast-tasks-get" && fastTasksGet) {
      const fast = fastTasksGet;
      const meta = (body.value as { params?: { _meta?: unknown } }).params?._meta;
      // A failure there is answered by the SDK below, whose handler records the request a second time.
      const served = await observeMcpRequest(service.telemetry, "tasks/get", { meta }, (requestSpan) =>
        fast.serve(response, body.value, route.taskId, caller, requestSpan),
      );
      if (served) return;
    }
    await serveMcp(request as never, response, body.value);
  }

  const port = options.port ?? 3000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      // The one start-up failure people meet often; say what to do instead of a stack trace.
      if (error.code === "EADDRINUSE")
        reject(new ConfigError("port", `${host}:${port} is already in use; choose another port (PORT or --port)`));
      else if (error.code === "EACCES")
        reject(new ConfigError("port", `${host}:${port} may not be opened by this user; choose a port above 1023`));
      else reject(error);
    });
    server.listen(port, host, () => {
      server.removeAllListeners("error");
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const displayHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  await authentication.start(`http://${displayHost}:${address.port}${path}`).catch(async (error: unknown) => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw error;
  });
  return {
    url: `http://${displayHost}:${address.port}${path}`,
    port: address.port,
    auth: authentication.description,
    ...(authentication.oauth ? { oauth: authentication.oauth } : {}),
    close: async () => {
      // No new connections; then every open wait answers with the current status (rather than a reset
      // socket), and the answers are written before the connections still open are cut.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const graceMs = options.closeGraceMs ?? 5_000;
      const giveUpAt = Date.now() + graceMs;
      await service.stopWaiting(graceMs);
      await untilAnswered(answering, Math.max(0, giveUpAt - Date.now()));
      await handler.close();
      server.closeAllConnections();
      await closed;
    },
  };
}

/** Resolve once every response in the set has been written (or its connection closed), or after `graceMs`. */
async function untilAnswered(answering: Set<ServerResponse>, graceMs: number): Promise<void> {
  const giveUpAt = Date.now() + graceMs;
  while (answering.size > 0 && Date.now() < giveUpAt) await new Promise((resolve) => setTimeout(resolve, 10));
}
