import { Command } from "commander";
import type { CommandModule } from "./command-module.js";
import { stopOnSignals } from "./stop-on-signals.js";

export const demoCommand: CommandModule = {
  usageExitCode: 1,
  build: () =>
    new Command("demo")
      .summary("start the demo job API and a server for it")
      .description(
        "Start the demo job API (env DEMO_API_PORT, default 4010; DEMO_API_HOST) and a server for it, and print how to connect a client.",
      )
      .option("-p, --port <port>", "the MCP server's HTTP port (default: $PORT or 3000)")
      .option("--host <host>", "the MCP server's host (default: $HOST or 127.0.0.1)")
      .option("--api-port <port>", "the demo job API's port (default: $DEMO_API_PORT or 4010)")
      .option(
        "--stdio",
        "serve MCP on stdin/stdout for an agent host; the demo job API then takes a free port unless one is asked for",
      )
      .option("--log-level <level>", "as for serve (default: $JOBTASKS_LOG_LEVEL, else info; warn with --stdio)")
      .action(async (flags: { port?: string; host?: string; apiPort?: string; stdio?: boolean; logLevel?: string }) => {
        const [{ runDemo }, { parsePort }] = await Promise.all([import("./demo.js"), import("./server-settings.js")]);
        const running = await runDemo({
          stdio: flags.stdio ?? false,
          ...(flags.logLevel !== undefined ? { logLevel: flags.logLevel } : {}),
          ...(flags.host !== undefined ? { host: flags.host } : {}),
          ...(flags.port !== undefined ? { port: parsePort("--port", flags.port) } : {}),
          ...(flags.apiPort !== undefined ? { apiPort: parsePort("--api-port", flags.apiPort) } : {}),
        });
        stopOnSignals(running.close);
      }),
};
