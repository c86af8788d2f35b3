import { Command } from "commander";
import { addAnswerOptions, addConnectionOptions, addTimeoutOption, type ClientFlags } from "./client/client-options.js";
import { exitCodes } from "./client/exit-codes.js";
import { readToolArguments } from "./client/tool-arguments.js";
import type { CommandModule } from "./command-module.js";
import { UsageError } from "./usage-error.js";

interface CallFlags extends ClientFlags {
  arg?: string[];
  args?: string;
}

// No default value: commander would print "(default: [])" in the help.
const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export const callCommand: CommandModule = {
  usageExitCode: exitCodes.clientError,
  build: () => {
    const command = new Command("call")
      .summary("call a tool as a task and follow it to its end")
      .description(
        "Call a tool as a task and follow it to its end: task id, live progress, input requests asked in the terminal, then the result.",
      )
      .usage('<url> <tool> [options]   or   --stdio "<command>" <tool> [options]')
      .argument("<url-or-tool>", "the server's MCP endpoint (http://host:port/mcp), or the tool when --stdio is given")
      .argument("[tool]", "the tool to call")
      .option("--arg <key=value>", "a tool argument, read by the type its schema gives; repeatable", collect)
      .option("--args <json>", "the tool's arguments as a JSON object (--arg values override)");
    addTimeoutOption(addAnswerOptions(addConnectionOptions(command)));
    return command
      .addHelpText("after", exitCodeHelp)
      .action(async (first: string, second: string | undefined, flags: CallFlags) => {
        // The MCP client, the prompts and the live output load only for the client commands.
        const { findTool, followToEnd, withClient } = await import("./client/run-client.js");
        const positionals = [first, ...(second === undefined ? [] : [second])];
        process.exitCode = await withClient(positionals, flags, async (session) => {
          const [tool, ...extra] = session.resolved.rest;
          if (tool === undefined) throw new UsageError("expected the tool to call");
          if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
          const declaration = await findTool(session.requester, tool);
          const toolArguments = readToolArguments(flags.arg ?? [], flags.args, declaration);
          return followToEnd(session, flags, () => session.requester.session.callTool(tool, toolArguments as never));
        });
      });
  },
};

export const exitCodeHelp = `
Exit codes: 0 completed, 1 completed with isError (the job ran and failed), 2 failed, 3 cancelled,
4 usage, connection, timeout or an input request nobody answered, 130 detached after Ctrl-C.`;
