import { pino, type Logger } from "pino";
import type { AdapterLogger } from "@jobtasks/core";
import { isSpanContextValid, trace } from "@opentelemetry/api";

export type { Logger };

/**
 * Logs go to stderr, always: under stdio, stdout carries only MCP messages. Credentials are redacted by
 * path for the usual places they could hide, as a second line of defence behind never logging them.
 */
export function createLogger(options: { level?: string; name?: string } = {}): Logger {
  return pino(
    {
      name: options.name ?? "jobtasks",
      level: options.level ?? process.env["JOBTASKS_LOG_LEVEL"] ?? "info",
      mixin: traceFields,
      redact: {
        paths: [
          "authorization",
          "*.authorization",
          "headers.authorization",
          "*.headers.authorization",
          "token",
          "*.token",
          "secret",
          "*.secret",
        ],
        censor: "[redacted]",
      },
    },
    pino.destination({ dest: 2, sync: true }),
  );
}

/**
 * The active span's ids, as the OpenTelemetry log data model names them, so that a line can be found
 * from its trace and back; nothing when no span is active (no SDK, or outside a request).
 */
export function traceFields(): Record<string, string> {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/** A logger that drops everything, for tests and embedding. */
export function createSilentLogger(): Logger {
  return pino({ level: "silent" });
}

export function toAdapterLogger(logger: Logger): AdapterLogger {
  return {
    debug: (fields, message) => logger.debug(fields, message),
    info: (fields, message) => logger.info(fields, message),
    warn: (fields, message) => logger.warn(fields, message),
    error: (fields, message) => logger.error(fields, message),
  };
}
