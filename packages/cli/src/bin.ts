#!/usr/bin/env node
import { commandModules } from "./commands.js";
import { runProgram } from "./program.js";

runProgram(commandModules, process.argv.slice(2)).then((exitCode) => {
  process.exitCode = exitCode;
});
