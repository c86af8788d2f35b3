import { Command } from "commander";
import { addAnswerOptions, addConnectionOptions, type ClientFlags } from "./client/client-options.js";
import { exitCodes } from "./client/exit-codes.js";
import type { CommandModule } from "./command-module.js";
import { UsageError } from "./usage-error.js";

/** `jobtasks task get|answer|cancel`: one step on a task, for scripts and for looking around. */

type StepName = "getTask" | "answerTask" | "cancelTask";

function subcommand(name: string, summary: string, description: string, step: StepName, withAnswers = false): Command {
  const command = new Command(name)
    .summary(summary)
    .description(description)
    .usage(`<url> <taskId> [options]   or   --stdio "<command>" <taskId> [options]`)
    .argument("<url-or-task-id>", "the server's MCP endpoint, or the task id when --stdio is given")
    .argument("[taskId]", "the task id");
  addConnectionOptions(command);
  if (withAnswers) addAnswerOptions(command);
  return command.action(async (first: string, second: string | undefined, flags: ClientFlags) => {
    const [{ withClient }, steps] = await Promise.all([
      import("./client/run-client.js"),
      import("./client/task-steps.js"),
    ]);
    process.exitCode = await withClient([first, ...(second === undefined ? [] : [second])], flags, async (session) => {
      const [taskId, ...extra] = session.resolved.rest;
      if (taskId === undefined) throw new UsageError("expected the task id");
      if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
      return steps[step](taskId, flags, session);
    });
  });
}

export const taskCommand: CommandModule = {
  usageExitCode: exitCodes.clientError,
  build: () =>
    new Command("task")
      .summary("get, answer or cancel a task by its id")
      .description("One step on a task by its id: get (print it), answer (its input requests), cancel.")
      .addCommand(
        subcommand(
          "get",
          "print the task",
          "Print the task: status, message, the input it asks for, its result. Exit code as for call once it has ended, else 0.",
          "getTask",
        ),
      )
      .addCommand(
        subcommand(
          "answer",
          "answer its input requests",
          "Answer the task's input requests from --answer/--answers, or at a prompt on a terminal.",
          "answerTask",
          true,
        ),
      )
      .addCommand(
        subcommand(
          "cancel",
          "ask the server to cancel it",
          "Ask the server to cancel the task (cooperative: it may still complete).",
          "cancelTask",
        ),
      ),
};
