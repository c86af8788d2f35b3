import { parentPort, workerData } from "node:worker_threads";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import { readableSpans, type BatchData } from "./span-data.js";

/**
 * The export worker's thread (started by worker-span-exporter.ts): the OpenTelemetry OTLP/HTTP exporter,
 * which reads OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION and the rest from the environment as it
 * would on the main thread, sends the batches it is given. It answers each request by its id.
 */

export interface ExportWorkerData {
  url: string;
  protocol: "http/protobuf" | "http/json";
}

export type ExportWorkerRequest =
  | ({ type: "export"; id: number } & BatchData)
  | { type: "flush" | "shutdown"; id: number };

export type ExportWorkerAnswer =
  | { type: "ready" }
  | { type: "unavailable"; packageName: string }
  | { type: "done"; id: number; code: number; error?: string };

const port = parentPort;
if (port === null) throw new Error("span-export-worker.ts runs as a worker thread only");
const { url, protocol } = workerData as ExportWorkerData;
const packageName =
  protocol === "http/json" ? "@opentelemetry/exporter-trace-otlp-http" : "@opentelemetry/exporter-trace-otlp-proto";

let exporter: SpanExporter;
try {
  const imported = (await (protocol === "http/json"
    ? import("@opentelemetry/exporter-trace-otlp-http")
    : import("@opentelemetry/exporter-trace-otlp-proto"))) as { OTLPTraceExporter?: unknown; default?: unknown };
  // A CommonJS package imported lazily from a bundle may come as `default` only.
  const { OTLPTraceExporter } = (imported.OTLPTraceExporter ? imported : imported.default) as {
    OTLPTraceExporter: new (config: { url: string }) => SpanExporter;
  };
  exporter = new OTLPTraceExporter({ url });
} catch (error) {
  if ((error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw error;
  port.postMessage({ type: "unavailable", packageName } satisfies ExportWorkerAnswer);
  process.exit(0);
}

const answer = (message: ExportWorkerAnswer) => port.postMessage(message);
port.on("message", (request: ExportWorkerRequest) => {
  if (request.type === "export") {
    try {
      exporter.export(readableSpans(request), (result) =>
        answer({
          type: "done",
          id: request.id,
          code: result.code,
          ...(result.error ? { error: result.error.name || "Error" } : {}),
        }),
      );
    } catch (error) {
      // That batch fails; the worker goes on with the next.
      answer({ type: "done", id: request.id, code: 1, error: (error as Error | undefined)?.name || "Error" });
    }
    return;
  }
  const settle = request.type === "flush" ? exporter.forceFlush?.() : exporter.shutdown();
  void Promise.resolve(settle).then(
    () => answer({ type: "done", id: request.id, code: 0 }),
    (error: unknown) =>
      answer({ type: "done", id: request.id, code: 1, error: (error as Error | undefined)?.name || "Error" }),
  );
});
answer({ type: "ready" });
