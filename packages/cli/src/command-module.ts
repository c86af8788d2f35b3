import type { Command } from "commander";

/**
 * One `jobtasks` command: its options, help and action in one module, listed once in commands.ts.
 */
export interface CommandModule {
  /** Builds the command (name, description, options, action). */
  build(): Command;
  /**
   * The exit code of a mistake on this command's line: 1 for the server commands (as always), 4 for the
   * client commands, whose codes 0-3 describe how the task ended.
   */
  usageExitCode: number;
}
