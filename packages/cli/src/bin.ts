#!/usr/bin/env node
import { parseArgs } from "node:util";
import { runCommand } from "./commands.js";
import { describeStartupError } from "./describe-startup-error.js";

const usage = `Usage:
  jobtasks serve --config|-c <file> [--port|-p N] [--host H] [--stdio]
      Serve the adapters of a config file as MCP tasks, over Streamable HTTP at /mcp (default
      http://127.0.0.1:3000/mcp; env PORT, HOST) or over stdio.
  jobtasks check --config|-c <file>
      Validate a config file and list the tools it would serve.
  jobtasks demo [--port N] [--host H] [--api-port N] [--stdio]
      Start the demo job API (env DEMO_API_PORT, default 4010; DEMO_API_HOST) and a server for it, and
      print how to connect a client; with --stdio, serve MCP on stdin/stdout for an agent host.
  jobtasks new adapter <kind> [--dir DIR]
      Write a new adapter package (default folder ./<kind>) that typechecks and passes its tests.
  jobtasks --version|-v, jobtasks --help|-h

Environment:
  JOBTASKS_SECRET            secret that seals task ids (default: generated once, kept in your config directory)
  JOBTASKS_SECRET_FILE       where that generated secret is kept instead
  JOBTASKS_PREVIOUS_SECRETS  older secrets, comma-separated, still accepted after a rotation
  JOBTASKS_AUTH_TOKENS       "alice:tokenA,bob:tokenB": require Authorization: Bearer <token> over HTTP
  JOBTASKS_LOG_LEVEL         fatal, error, warn, info (default), debug, trace or silent; logs go to stderr
`;

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      config: { type: "string", short: "c" },
      port: { type: "string", short: "p" },
      host: { type: "string" },
      stdio: { type: "boolean", default: false },
      "api-port": { type: "string" },
      dir: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
      version: { type: "boolean", short: "v", default: false },
    },
  });
  await runCommand(positionals, values, usage);
}

main().catch((error: unknown) => {
  process.stderr.write(`${describeStartupError(error, usage)}\n`);
  process.exitCode = 1;
});
