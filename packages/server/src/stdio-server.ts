import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import { STDIO_DEFAULT_MAX_BUFFER_SIZE, type Transport } from "@modelcontextprotocol/server";
import { localPrincipal } from "./auth.js";
import { BoundedLineInput } from "./bounded-line-input.js";
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
  /** The streams to serve on instead of process.stdin and process.stdout (ignored with `transport`). */
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  /** How often task subscriptions re-read their tasks. Default 1000 ms. */
  subscriptionIntervalMs?: number;
}

/** The SDK's own bound on one stdio message; a longer one is answered with an error and skipped. */
export const maxStdioMessageBytes = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/**
 * Serve MCP over stdio. The caller is the local user who started the process, so every request gets the
 * local principal; tokens do not apply here.
 */
export function startStdioServer(options: StdioServerOptions): { close(): Promise<void> } {
  const { logger } = options;
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  // The SDK's transport closes the connection for good on a message over its bound, and says so only to
  // onerror; the client would then wait forever. Such a message is dropped before it, and answered.
  const bounded = new BoundedLineInput(maxStdioMessageBytes, () => {
    logger.error(
      { maxBytes: maxStdioMessageBytes },
      `dropped a stdio message larger than ${maxStdioMessageBytes} bytes`,
    );
    // Its id cannot be read without parsing the whole message, so the answer carries none (JSON-RPC's rule).
    output.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: `Invalid Request: message larger than ${maxStdioMessageBytes} bytes` } })}\n`,
    );
  });
  const wire = options.transport ?? new StdioServerTransport(input.pipe(bounded) as never, output as never);
  const transport = new TaskListenTransport(wire, {
    service: options.service,
    logger,
    principal: localPrincipal,
    ...(options.subscriptionIntervalMs !== undefined ? { intervalMs: options.subscriptionIntervalMs } : {}),
  });
  const served = serveStdio(
    ({ era }) =>
      createMcpServer({
        era,
        name: options.name,
        version: options.version,
        ...(options.instructions ? { instructions: options.instructions } : {}),
        service: options.service,
        logger,
        principal: localPrincipal,
      }),
    {
      transport,
      onerror: (error) => logger.debug({ err: error }, "stdio transport error"),
    },
  );
  return {
    close: async () => {
      await served.close();
      // Let go of stdin as the SDK's transport would, so a process with nothing else to do can exit.
      if (options.transport === undefined) {
        input.unpipe(bounded);
        if (input.listenerCount("data") === 0) input.pause();
      }
    },
  };
}
