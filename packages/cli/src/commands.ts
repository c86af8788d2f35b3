import type { CommandModule } from "./command-module.js";
import { callCommand } from "./call-command.js";
import { checkCommand } from "./check-command.js";
import { demoCommand } from "./demo-command.js";
import { newCommand } from "./new-command.js";
import { serveCommand } from "./serve-command.js";
import { taskCommand } from "./task-command.js";
import { watchCommand } from "./watch-command.js";

/** Every `jobtasks` command, in the order `jobtasks --help` lists them. Adding one is one line here. */
export const commandModules: readonly CommandModule[] = [
  serveCommand,
  checkCommand,
  demoCommand,
  newCommand,
  callCommand,
  watchCommand,
  taskCommand,
];
