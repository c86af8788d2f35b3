import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import type { Transport } from "@modelcontextprotocol/server";
import { localPrincipal } from "./auth.js";
import { createMcpServer } from "./mcp-server.js";
import { TaskListenTransport } from "./task-listen-transport.js";
import type { TaskService } from "./task-service.js";
import type { Logger } from "./logger.js";

export interface StdioServerOptions {
  service: TaskService;
  logger: Logger;
  name: string;
  version: string;
  instructions?: string;
  /** Another transport than the process's stdin/stdout (tests, sockets). */
  transport?: Transport;
  /** How often task subscriptions re-read their tasks. Default 1000 ms. */
  subscriptionIntervalMs?: number;
}

/**
 * Serve MCP over stdio. The caller is the local user who started the process, so every request gets the
 * local principal; tokens do not apply here.
 */
export function startStdioServer(options: StdioServerOptions): { close(): Promise<void> } {
  const transport = new TaskListenTransport(options.transport ?? new StdioServerTransport(), {
    service: options.service,
    logger: options.logger,
    principal: localPrincipal,
    ...(options.subscriptionIntervalMs !== undefined ? { intervalMs: options.subscriptionIntervalMs } : {}),
  });
  return serveStdio(
    ({ era }) =>
      createMcpServer({
        era,
        name: options.name,
        version: options.version,
        ...(options.instructions ? { instructions: options.instructions } : {}),
        service: options.service,
        logger: options.logger,
        principal: localPrincipal,
      }),
    {
      transport,
      onerror: (error) => options.logger.debug({ err: error }, "stdio transport error"),
    },
  );
}
