import { ConfigError } from "@jobtasks/core";
import { ConfigFileError } from "./load-config.js";
import { ListenError } from "./listen-error.js";

/**
 * What a person reads when `jobtasks` cannot start: the message alone for problems of configuration
 * (they name the field) and for an address that cannot be opened, the usage for a mistyped command line,
 * and the stack only for the unexpected.
 */
export function describeStartupError(error: unknown, usage: string): string {
  if (error instanceof ConfigFileError || error instanceof ConfigError || error instanceof ListenError) return error.message;
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof TypeError && typeof code === "string" && code.startsWith("ERR_PARSE_ARGS")) {
    return `${error.message}\n\n${usage}`;
  }
  return `jobtasks failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
}
