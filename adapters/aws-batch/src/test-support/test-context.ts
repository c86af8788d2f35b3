import type { AdapterContext } from "@jobtasks/core";

/** A context as the core would pass it, with a logger that records instead of printing. */
export function testContext(principal = "alice@example.com"): AdapterContext & { logged: string[] } {
  const logged: string[] = [];
  const record = (fields: Record<string, unknown>, message: string) =>
    logged.push(`${message} ${JSON.stringify(fields)}`);
  return {
    signal: new AbortController().signal,
    principal,
    logger: { debug: record, info: record, warn: record, error: record },
    logged,
  };
}
