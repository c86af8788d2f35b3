import { ConfigError, terminalSafe } from "@jobtasks/core";
import { ConfigFileError } from "./load-config.js";
import { ListenError } from "./listen-error.js";
import { ClientError } from "./client/client-error.js";

/**
 * What a person reads when a `jobtasks` command cannot go on: the message alone for problems of
 * configuration (they name the field), for an address that cannot be opened and for a client's failures
 * (connection, a refused request, made terminal-safe as they are built), the stack only for the unexpected.
 */
export function describeStartupError(error: unknown): string {
  if (
    error instanceof ConfigFileError ||
    error instanceof ConfigError ||
    error instanceof ListenError ||
    error instanceof ClientError
  )
    return error.message;
  // An unexpected error in call, watch or task may quote the server: it must not drive the terminal either.
  return terminalSafe(`jobtasks failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
}
