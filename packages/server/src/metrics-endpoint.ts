import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { sameSecret } from "@jobtasks/core/adapter-utils";
import { ConfigError } from "@jobtasks/core";

/** The Prometheus text exposition format, version 0.0.4: what every Prometheus scrapes. */
export const prometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

export interface MetricsEndpointOptions {
  /** The current metrics in the Prometheus text format (the SDK's Prometheus serializer, for `jobtasks serve`). */
  collect(): Promise<string>;
  /** When set, a scrape must send `Authorization: Bearer <token>`; separate from the MCP tokens. */
  token?: string | undefined;
}

export interface MetricsEndpoint {
  serve(request: IncomingMessage, response: ServerResponse): Promise<void>;
}

/** `GET /metrics`: the scrape answer, behind its own optional bearer token. */
export function createMetricsEndpoint(options: MetricsEndpointOptions): MetricsEndpoint {
  return {
    async serve(request, response) {
      if (request.method !== "GET" && request.method !== "HEAD") {
        response.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain" });
        response.end("Method not allowed\n");
        return;
      }
      if (options.token !== undefined) {
        const sent = /^Bearer (.+)$/i.exec(request.headers.authorization ?? "")?.[1];
        if (sent === undefined || !sameSecret(sent, options.token)) {
          response.writeHead(401, {
            "www-authenticate": 'Bearer realm="jobtasks-metrics"',
            "content-type": "text/plain",
          });
          response.end("Unauthorized\n");
          return;
        }
      }
      const text = await options.collect();
      response.writeHead(200, { "content-type": prometheusContentType });
      response.end(request.method === "HEAD" ? undefined : text);
    },
  };
}

export interface RunningMetricsServer {
  url: string;
  close(): Promise<void>;
}

/** Serve the endpoint alone on its own port (`server.metrics.port`), at /metrics; everything else is 404. */
export async function startMetricsServer(options: {
  endpoint: MetricsEndpoint;
  host: string;
  port: number;
}): Promise<RunningMetricsServer> {
  // Loaded here, not with the module: a stdio start imports this file (for createMetricsEndpoint) and
  // would otherwise load Node's HTTP stack for a port it may never open.
  const { createServer } = await import("node:http");
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    if (path !== "/metrics") {
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("Not found: metrics are at /metrics\n");
      return;
    }
    options.endpoint.serve(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" });
      response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new ConfigError(
              "server.metrics.port",
              `${options.host}:${options.port} is already in use; choose another port`,
            )
          : error,
      ),
    );
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
