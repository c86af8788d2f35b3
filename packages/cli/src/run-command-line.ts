import { commandModules } from "./commands.js";
import { runProgram } from "./program.js";

// The `jobtasks` command line itself, run when imported: bin.js imports it, or the bundle built from it.
runProgram(commandModules, process.argv.slice(2)).then((exitCode) => {
  process.exitCode = exitCode;
});
