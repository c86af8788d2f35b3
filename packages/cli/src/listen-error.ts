import { ConfigError } from "@jobtasks/core";

/**
 * An address that could not be opened (taken, or a port this user may not use): a fact about the machine
 * at this moment, not a mistake in the config, so it is not reported as "Invalid configuration".
 */
export class ListenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ListenError";
  }
}

/**
 * The HTTP server and the demo API report a listen failure as a ConfigError naming the setting that
 * chooses the port (`port`, `DEMO_API_PORT`), whose message already says what to do; keep that message
 * and drop the "Invalid configuration at ..." framing.
 */
export async function whileListening<T>(setting: string, start: Promise<T>): Promise<T> {
  try {
    return await start;
  } catch (error) {
    if (error instanceof ConfigError && error.option === setting) {
      throw new ListenError(error.message.replace(`Invalid configuration at ${setting}: `, ""), { cause: error });
    }
    throw error;
  }
}
