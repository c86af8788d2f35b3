import { commandModules } from "./commands.js";
import { runProgram } from "./program.js";

// The `jobtasks` command line itself, run when imported. bin.js does not import this module: it imports
// dist/command-line.mjs, the bundle that `pnpm build` makes of it (scripts/bundle-command-line.mjs).
// Run as tsc wrote it (`node dist/run-command-line.js`), it is the same command line, module by module.
runProgram(commandModules, process.argv.slice(2)).then((exitCode) => {
  process.exitCode = exitCode;
});
