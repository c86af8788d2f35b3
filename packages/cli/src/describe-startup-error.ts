import { ConfigError } from "@jobtasks/core";
import { ConfigFileError } from "./load-config.js";
import { ListenError } from "./listen-error.js";
import { ClientError } from "./client/client-error.js";

/**
 * What a person reads when a `jobtasks` command cannot go on: the message alone for problems of
 * configuration (they name the field), for an address that cannot be opened and for a client's failures
 * (connection, a refused request), the stack only for the unexpected.
 */
export function describeStartupError(error: unknown): string {
  if (
    error instanceof ConfigFileError ||
    error instanceof ConfigError ||
    error instanceof ListenError ||
    error instanceof ClientError
  )
    return error.message;
  return `jobtasks failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
}
