import { terminalSafe } from "@jobtasks/core";
import { exitCodes } from "./exit-codes.js";

/**
 * A failure of the client itself (connection, a refused request, bad input for a tool): exit code 4. Its
 * message often quotes the server (a JSON-RPC error), so it is made terminal-safe before anyone prints it.
 */
export class ClientError extends Error {
  readonly exitCode: number = exitCodes.clientError;

  constructor(message: string, options?: ErrorOptions) {
    super(terminalSafe(message), options);
  }
}

/** What went wrong with a request, from deep in the cause chain ("fetch failed (ECONNREFUSED)"). */
export function describeRequestFailure(error: Error): string {
  const messages: string[] = [];
  for (
    let current: unknown = error, depth = 0;
    current instanceof Error && depth < 8;
    current = current.cause, depth++
  ) {
    const code = (current as { code?: unknown }).code;
    const text = `${current.message}${typeof code === "string" && !current.message.includes(code) ? ` (${code})` : ""}`;
    if (!messages.some((known) => known.includes(text))) messages.push(text);
  }
  return messages.slice(-2).join(": ") || "the request failed";
}
