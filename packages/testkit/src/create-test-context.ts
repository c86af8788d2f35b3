import type { AdapterContext, AdapterLogger } from "@jobtasks/core";

export interface LogEntry {
  level: "debug" | "info" | "warn" | "error";
  fields: Record<string, unknown>;
  message: string;
}

/**
 * A logger that prints nothing and keeps what it was given (in `entries`, or a new array), so that a test
 * can look for leaked secrets or expected warnings.
 */
export function createRecordingLogger(entries: LogEntry[] = []): { logger: AdapterLogger; entries: LogEntry[] } {
  const record = (level: LogEntry["level"]) => (fields: Record<string, unknown>, message: string) => {
    entries.push({ level, fields, message });
  };
  return {
    entries,
    logger: { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") },
  };
}

/** An AdapterContext that keeps what was logged through it. */
export type RecordingTestContext = AdapterContext & { readonly logEntries: LogEntry[] };

/**
 * An AdapterContext for adapter tests: a fresh, unaborted signal, principal "test", and a silent logger
 * that keeps every entry in `logEntries` (or in the array passed as `logEntries`, shared between
 * contexts), so that a test can look for a warning or a leaked secret. Pass `{ signal }` to test
 * cancellation of in-flight calls; a `logger` passed in replaces the recording one.
 */
export function createTestContext(
  overrides: Partial<AdapterContext> & { logEntries?: LogEntry[] } = {},
): RecordingTestContext {
  const { logEntries = [], ...contextOverrides } = overrides;
  return {
    signal: new AbortController().signal,
    principal: "test",
    logger: createRecordingLogger(logEntries).logger,
    ...contextOverrides,
    logEntries,
  };
}
