import { Command } from "commander";
import type { CommandModule } from "./command-module.js";
import { requireConfig } from "./require-config.js";

export const checkCommand: CommandModule = {
  usageExitCode: 1,
  build: () =>
    new Command("check")
      .summary("validate a config file and list its tools")
      .description(
        "Validate a config file as serve would (adapters, tool names, JOBTASKS_* settings) and list the tools it would serve; neither listens nor writes a secret file.",
      )
      .option("-c, --config <file>", "the config file (YAML or JSON); required")
      .option("-p, --port <port>", "check this port as serve would read it")
      .option("--host <host>", "check this host as serve would read it")
      .action(async (flags: { config?: string; port?: string; host?: string }) => {
        // Everything `serve` would refuse, without listening and without writing a secret file.
        const [
          { createSilentLogger },
          { loadConfig },
          { buildTaskService, checkOnlySealer, parsePort, readServerSettings },
        ] = await Promise.all([import("@jobtasks/server"), import("./load-config.js"), import("./server-settings.js")]);
        const config = await loadConfig(requireConfig(flags.config));
        readServerSettings(config, process.env, {
          ...(flags.port !== undefined ? { port: parsePort("--port", flags.port) } : {}),
          ...(flags.host !== undefined ? { host: flags.host } : {}),
        });
        buildTaskService(config, await checkOnlySealer(process.env), createSilentLogger());
        const lines = config.adapters.flatMap(({ name, adapter }) =>
          adapter.tools.map(
            (tool: { name: string; description: string }) =>
              `  ${tool.name}  (adapter ${name}, ${adapter.kind}): ${tool.description.split("\n")[0]}`,
          ),
        );
        process.stdout.write(`Config is valid. Tools:\n${lines.join("\n")}\n`);
        await Promise.allSettled(config.adapters.map(({ adapter }) => adapter.close?.()));
      }),
};
