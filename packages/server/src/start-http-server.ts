import type { HttpServerOptions, RunningHttpServer } from "./http-server.js";

/**
 * The package's startHttpServer: the HTTP stack (the SDK's Node adapter, Hono, the request guard) loads on
 * the first call, so a stdio server, which never calls it, starts without parsing any of it. Agent hosts
 * spawn a stdio server per conversation, and that start is what their user waits for.
 */
export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const { startHttpServer: start } = await import("./http-server.js");
  return start(options);
}
