import { Command } from "commander";
import { exitCodeHelp } from "./call-command.js";
import { addAnswerOptions, addConnectionOptions, addTimeoutOption, type ClientFlags } from "./client/client-options.js";
import { exitCodes } from "./client/exit-codes.js";
import type { CommandModule } from "./command-module.js";
import { UsageError } from "./usage-error.js";

export const watchCommand: CommandModule = {
  usageExitCode: exitCodes.clientError,
  build: () => {
    const command = new Command("watch")
      .summary("resume following a task by its id")
      .description("Resume following a task by its id (after a restart, from another terminal), as call follows it.")
      .usage('<url> <taskId> [options]   or   --stdio "<command>" <taskId> [options]')
      .argument("<url-or-task-id>", "the server's MCP endpoint, or the task id when --stdio is given")
      .argument("[taskId]", "the task id that call printed");
    addTimeoutOption(addAnswerOptions(addConnectionOptions(command)));
    return command
      .addHelpText("after", exitCodeHelp)
      .action(async (first: string, second: string | undefined, flags: ClientFlags) => {
        const { followToEnd, withClient } = await import("./client/run-client.js");
        const positionals = [first, ...(second === undefined ? [] : [second])];
        process.exitCode = await withClient(positionals, flags, async (session) => {
          const [taskId, ...extra] = session.resolved.rest;
          if (taskId === undefined) throw new UsageError("expected the task id");
          if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
          const { session: tasks } = session.requester;
          return followToEnd(session, flags, () =>
            tasks.resumeTask({
              endpointId: tasks.endpointId,
              generation: "v2",
              taskId: taskId as never,
              originalOperation: "tools/call",
            }),
          );
        });
      });
  },
};
