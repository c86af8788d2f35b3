import type { CommanderError } from "commander";

/** A mistake on the command line. Printed with the command's usage; never with a stack trace. */
export class UsageError extends Error {}

/**
 * Commander's messages reworded in this project's voice: "unknown option --prot; did you mean --port?".
 * Anything not listed keeps commander's wording, without its "error: " prefix.
 */
export function describeCommanderError(error: CommanderError): string {
  const [first = "", ...more] = error.message.replace(/^error: /, "").split("\n");
  const suggestion = /^\(Did you mean (.+)\?\)$/.exec(more.join(" ").trim())?.[1];
  const hint = suggestion ? `; did you mean ${suggestion}?` : "";
  const quoted = /'([^']*)'/.exec(first)?.[1] ?? "";
  switch (error.code) {
    case "commander.unknownOption":
      return `unknown option ${quoted}${hint}`;
    case "commander.unknownCommand":
      return `unknown command "${quoted}"${hint}`;
    case "commander.missingArgument":
      return `missing <${quoted}>`;
    case "commander.missingMandatoryOptionValue":
      return `${/^(?:-\w, )?(\S+ ?[^ ]*)/.exec(quoted)?.[1] ?? quoted} is required`;
    case "commander.optionMissingArgument":
      return `${quoted} needs a value`;
    case "commander.excessArguments":
      return first.replace(/^too many arguments( for '[^']*')?\./, "unexpected extra arguments.");
    default:
      return first + hint;
  }
}
