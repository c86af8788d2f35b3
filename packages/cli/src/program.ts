import { Command, CommanderError } from "commander";
import type { CommandModule } from "./command-module.js";
import { describeStartupError } from "./describe-startup-error.js";
import { packageVersion } from "./package-version.js";
import { describeCommanderError, UsageError } from "./usage-error.js";

const environmentHelp = `
Environment:
  JOBTASKS_SECRET            secret that seals task ids (default: generated once, kept in your config directory)
  JOBTASKS_SECRET_FILE       where that generated secret is kept instead
  JOBTASKS_PREVIOUS_SECRETS  older secrets, comma-separated, still accepted after a rotation
  JOBTASKS_AUTH_TOKENS       "alice:tokenA,bob:tokenB": require Authorization: Bearer <token> over HTTP
  JOBTASKS_LOG_LEVEL         fatal, error, warn, info, debug, trace or silent (default info; warn over stdio); logs go to stderr
  JOBTASKS_TOKEN             the bearer token call, watch and task send (or --token)

Run "jobtasks <command> --help" for a command's options.`;

/**
 * The `jobtasks` program: commander parses, each module in commands.ts adds one command. Mistakes on the
 * command line come back as a UsageError naming the command, printed with that command's usage.
 */
export function buildProgram(modules: readonly CommandModule[]): {
  program: Command;
  usageExitCode(command: Command): number;
} {
  const program = new Command("jobtasks")
    .description("Serve long-running jobs as MCP tasks, and follow tasks from a terminal.")
    .version(packageVersion, "-v, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .addHelpText("after", environmentHelp)
    .showSuggestionAfterError(true);
  const exitCodes = new Map<Command, number>();
  for (const module of modules) {
    const command = module.build();
    program.addCommand(command);
    exitCodes.set(command, module.usageExitCode);
  }
  const failing = (command: Command) => (error: CommanderError) => {
    throw Object.assign(error, { command });
  };
  for (const command of [program, ...program.commands, ...program.commands.flatMap((command) => command.commands)]) {
    command
      .helpOption("-h, --help", "show help")
      .exitOverride(failing(command))
      .configureOutput({ outputError: () => undefined })
      .showSuggestionAfterError(true);
  }
  const usageExitCode = (command: Command): number => {
    for (let current: Command | null = command; current; current = current.parent) {
      const code = exitCodes.get(current);
      if (code !== undefined) return code;
    }
    return 1;
  };
  return { program, usageExitCode };
}

/** Parses and runs; resolves with the exit code. */
export async function runProgram(modules: readonly CommandModule[], argv: readonly string[]): Promise<number> {
  const { program, usageExitCode } = buildProgram(modules);
  let active: Command = program;
  program.hook("preAction", (_root, actionCommand) => {
    active = actionCommand;
  });
  try {
    if (argv.length === 0) {
      process.stderr.write(program.helpInformation());
      return 0;
    }
    await program.parseAsync([...argv], { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, having printed what was asked.
      if (
        error.code === "commander.helpDisplayed" ||
        error.code === "commander.version" ||
        error.code === "commander.help"
      )
        return 0;
      const command = (error as CommanderError & { command?: Command }).command ?? program;
      process.stderr.write(`${describeCommanderError(error)}\n${shortUsage(command)}`);
      return usageExitCode(command);
    }
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n${shortUsage(active)}`);
      return usageExitCode(active);
    }
    const exitCode = (error as { exitCode?: unknown } | null)?.exitCode;
    process.stderr.write(`${describeStartupError(error)}\n`);
    return typeof exitCode === "number" ? exitCode : 1;
  }
}

/** The usage line and where the rest is: a mistake deserves one line of reminder, not the whole help. */
function shortUsage(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current; current = current.parent) names.unshift(current.name());
  const name = names.join(" ");
  return `Usage: ${name} ${command.usage()}\nRun "${name} --help" for ${command.parent ? "its options" : "the commands"}.\n`;
}
