import { Command } from "commander";
import type { CommandModule } from "./command-module.js";
import { requireConfig } from "./require-config.js";
import { stopOnSignals } from "./stop-on-signals.js";

export const serveCommand: CommandModule = {
  usageExitCode: 1,
  build: () =>
    new Command("serve")
      .summary("serve the adapters of a config file as MCP tasks (HTTP or stdio)")
      .description(
        "Serve the adapters of a config file as MCP tasks, over Streamable HTTP at /mcp (default http://127.0.0.1:3000/mcp; env PORT, HOST) or over stdio.",
      )
      .option("-c, --config <file>", "the config file (YAML or JSON); required")
      .option("-p, --port <port>", "HTTP port (default: $PORT or 3000)")
      .option("--host <host>", "HTTP host (default: $HOST or 127.0.0.1)")
      .option("--stdio", "serve MCP on stdin/stdout instead of HTTP (logs stay on stderr)")
      .option(
        "--log-level <level>",
        "fatal, error, warn, info, debug, trace or silent (default: $JOBTASKS_LOG_LEVEL, server.logLevel, else info; warn with --stdio)",
      )
      .action(async (flags: { config?: string; port?: string; host?: string; stdio?: boolean; logLevel?: string }) => {
        // Loaded here, not above: every other command builds this one, and none needs the server.
        const [{ serve }, { parsePort }] = await Promise.all([import("./serve.js"), import("./server-settings.js")]);
        const running = await serve({
          config: requireConfig(flags.config),
          ...(flags.port !== undefined ? { port: parsePort("--port", flags.port) } : {}),
          ...(flags.host !== undefined ? { host: flags.host } : {}),
          stdio: flags.stdio ?? false,
          ...(flags.logLevel !== undefined ? { logLevel: flags.logLevel } : {}),
          restartForAsyncContextFrames: true,
        });
        stopOnSignals(running.close);
      }),
};
