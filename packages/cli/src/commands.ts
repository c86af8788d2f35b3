import { ConfigError } from "@jobtasks/core";
import { createSilentLogger } from "@jobtasks/server";
import { loadConfig } from "./load-config.js";
import { buildTaskService, checkOnlySealer, parsePort, readServerSettings } from "./server-settings.js";
import { packageVersion } from "./package-version.js";
import { serve } from "./serve.js";
import { runDemo } from "./demo.js";
import { runNewCommand } from "./new-adapter-command.js";

export interface CommandFlags {
  config?: string | undefined;
  port?: string | undefined;
  host?: string | undefined;
  stdio?: boolean | undefined;
  "api-port"?: string | undefined;
  dir?: string | undefined;
  help?: boolean | undefined;
  version?: boolean | undefined;
}

export async function runCommand(positionals: string[], flags: CommandFlags, usage: string): Promise<void> {
  const [command, ...rest] = positionals;
  if (flags.version) {
    process.stdout.write(`${packageVersion}\n`);
    return;
  }
  if (flags.help || command === undefined || command === "help") {
    process.stderr.write(usage);
    return;
  }
  if (command === "new") return runNewCommand(rest, flags.dir);
  if (rest.length > 0) throw usageError(`unexpected argument "${rest[0]}"`, usage);
  switch (command) {
    case "serve": {
      const running = await serve({
        config: requireConfig(flags, usage),
        ...(flags.port !== undefined ? { port: parsePort("--port", flags.port) } : {}),
        ...(flags.host !== undefined ? { host: flags.host } : {}),
        stdio: flags.stdio ?? false,
      });
      stopOnSignals(running.close);
      return;
    }
    case "check": {
      // Everything `serve` would refuse, without listening and without writing a secret file.
      const config = await loadConfig(requireConfig(flags, usage));
      readServerSettings(config, process.env, {
        ...(flags.port !== undefined ? { port: parsePort("--port", flags.port) } : {}),
        ...(flags.host !== undefined ? { host: flags.host } : {}),
      });
      buildTaskService(config, await checkOnlySealer(process.env), createSilentLogger());
      const lines = config.adapters.flatMap(({ name, adapter }) =>
        adapter.tools.map((tool: { name: string; description: string }) => `  ${tool.name}  (adapter ${name}, ${adapter.kind}): ${tool.description.split("\n")[0]}`),
      );
      process.stdout.write(`Config is valid. Tools:\n${lines.join("\n")}\n`);
      await Promise.allSettled(config.adapters.map(({ adapter }) => adapter.close?.()));
      return;
    }
    case "demo": {
      const running = await runDemo({
        stdio: flags.stdio ?? false,
        ...(flags.host !== undefined ? { host: flags.host } : {}),
        ...(flags.port !== undefined ? { port: parsePort("--port", flags.port) } : {}),
        ...(flags["api-port"] !== undefined ? { apiPort: parsePort("--api-port", flags["api-port"]) } : {}),
      });
      stopOnSignals(running.close);
      return;
    }
    default:
      throw usageError(`unknown command "${command}"`, usage);
  }
}

function requireConfig(flags: CommandFlags, usage: string): string {
  if (!flags.config) throw usageError("--config <file> is required", usage);
  return flags.config;
}

function usageError(message: string, usage: string): Error {
  return new ConfigError("command line", `${message}\n\n${usage}`);
}

/** Close servers cleanly on Ctrl-C or a stop signal; a second signal exits at once. */
function stopOnSignals(close: () => Promise<void>): void {
  let stopping = false;
  const stop = () => {
    if (stopping) process.exit(1);
    stopping = true;
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
