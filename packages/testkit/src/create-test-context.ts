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

/**
 * An AdapterContext for adapter tests: a fresh, unaborted signal, principal "test", a silent logger.
 * Pass `{ signal }` to test cancellation of in-flight calls.
 */
export function createTestContext(overrides: Partial<AdapterContext> = {}): AdapterContext {
  return {
    signal: new AbortController().signal,
    principal: "test",
    logger: createRecordingLogger().logger,
    ...overrides,
  };
}
