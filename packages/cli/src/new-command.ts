import { Command } from "commander";
import type { CommandModule } from "./command-module.js";

export const newCommand: CommandModule = {
  usageExitCode: 1,
  build: () =>
    new Command("new").summary("scaffold an adapter package").addCommand(
      new Command("adapter")
        .description(
          "Write a new adapter package (default folder ./<kind>) that follows the adapter anatomy, typechecks and passes its tests: see docs/writing-an-adapter.md.",
        )
        .argument("<kind>", "the adapter's kind, in kebab case (for example build-queue)")
        .option("--dir <directory>", "where to write it; refused if it holds anything (default: ./<kind>)")
        .action(async (kind: string, flags: { dir?: string }) => {
          const { runNewCommand } = await import("./new-adapter-command.js");
          await runNewCommand(["adapter", kind], flags.dir);
        }),
    ),
};
