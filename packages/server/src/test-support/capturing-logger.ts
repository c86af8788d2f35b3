import { Writable } from "node:stream";
import { pino } from "pino";
import { traceFields } from "../logger.js";

/** One JSON log line as pino wrote it, with the fields server tests look at. */
export interface LogEntry {
  level: number;
  msg: string;
  err?: { stack?: string };
}

/**
 * A real pino logger (debug and up) whose lines are kept, parsed, for the test to read; `withTraceFields`:
 * with the server logger's mixin, which adds the active span's ids.
 */
export function capturingLogger(options: { withTraceFields?: boolean } = {}) {
  const entries: LogEntry[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n"))
        if (line.trim() !== "") entries.push(JSON.parse(line) as LogEntry);
      done();
    },
  });
  return {
    logger: pino({ level: "debug", ...(options.withTraceFields ? { mixin: traceFields } : {}) }, sink),
    entries,
  };
}
