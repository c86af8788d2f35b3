import { existsSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { ConfigError } from "@jobtasks/core";
import type { Logger } from "@jobtasks/server";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import { batchData } from "./span-data.js";
import type { ExportWorkerAnswer, ExportWorkerData, ExportWorkerRequest } from "./span-export-worker.js";

/** The SDK's ExportResultCode (in @opentelemetry/core, which is not ours to import). */
const exportSucceeded = 0;
const exportFailed = 1;

/**
 * A span exporter whose OTLP/HTTP requests leave from a worker thread. The batching processor still runs
 * on the main thread and hands each batch over as data (span-data.ts), and the OpenTelemetry OTLP exporter
 * in the worker sends it, with every OTEL_EXPORTER_OTLP_* setting it reads. Why: an HTTP client request
 * on the main thread sends its objects through the same Node functions (streams, sockets, outgoing
 * messages) as the server's answers, and V8 then compiles those functions for both kinds of object.
 * bench/observability.ts measured a traced server polling at about 1.22x the CPU of an untraced one that
 * way, and at 1.16x, as much as with metrics alone, once the requests left from a worker (BENCHMARKS.md 13).
 */
export class WorkerSpanExporter implements SpanExporter {
  readonly #worker: Worker;
  readonly #logger: Logger;
  readonly #pending = new Map<number, (answer: { code: number; error?: string }) => void>();
  #nextId = 0;
  /** Why the worker is gone, once it is: every export after that fails at once. */
  #gone: string | undefined;

  private constructor(worker: Worker, logger: Logger) {
    this.#worker = worker;
    this.#logger = logger;
    worker.on("message", (answer: ExportWorkerAnswer) => {
      if (answer.type !== "done") return;
      this.#pending.get(answer.id)?.(answer);
      this.#pending.delete(answer.id);
    });
    worker.on("error", (error) => {
      this.#logger.warn({ error: error.name }, "the span export worker failed; spans are no longer exported");
      this.#end("the span export worker failed");
    });
    worker.on("exit", () => this.#end("the span export worker exited"));
    // Nothing it does should keep the process alive.
    worker.unref();
  }

  /** Start the worker and wait until its exporter is built; a missing exporter package is a ConfigError. */
  static async start(options: ExportWorkerData, logger: Logger): Promise<WorkerSpanExporter> {
    const worker = new Worker(workerEntry(), { workerData: options satisfies ExportWorkerData });
    const first = await new Promise<ExportWorkerAnswer>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    if (first.type === "unavailable") {
      await worker.terminate();
      throw new ConfigError(
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        `needs ${first.packageName}, an optional peer dependency of jobtasks: install it beside jobtasks`,
      );
    }
    return new WorkerSpanExporter(worker, logger);
  }

  export(spans: ReadableSpan[], resultCallback: (result: { code: number; error?: Error }) => void): void {
    this.#request({ type: "export", ...batchData(spans) }, (answer) =>
      resultCallback(
        answer.code === exportSucceeded
          ? { code: exportSucceeded }
          : { code: exportFailed, error: new Error(answer.error ?? "the export failed") },
      ),
    );
  }

  forceFlush(): Promise<void> {
    return new Promise((resolve) => this.#request({ type: "flush" }, () => resolve()));
  }

  /** Send what the worker still holds, then stop it. */
  async shutdown(): Promise<void> {
    if (this.#gone === undefined)
      await new Promise<void>((resolve) => this.#request({ type: "shutdown" }, () => resolve()));
    await this.#worker.terminate();
  }

  #request(
    request: { type: "export"; spans: unknown; resources: unknown } | { type: "flush" | "shutdown" },
    settled: (answer: { code: number; error?: string }) => void,
  ): void {
    if (this.#gone !== undefined) {
      settled({ code: exportFailed, error: this.#gone });
      return;
    }
    const id = this.#nextId++;
    this.#pending.set(id, settled);
    this.#worker.postMessage({ ...request, id } as ExportWorkerRequest);
  }

  #end(reason: string): void {
    this.#gone ??= reason;
    for (const settled of this.#pending.values()) settled({ code: exportFailed, error: reason });
    this.#pending.clear();
  }
}

/**
 * The worker's module: the command line's bundle has its own (bundle-command-line.mjs builds it with the
 * exporters inside), the package's modules the compiled one beside them, and a run from the sources (the
 * benchmarks, under tsx, which a worker thread does not inherit on Node 20) the built one in dist.
 */
function workerEntry(): URL {
  const candidates = [
    "./command-line-span-export-worker.mjs",
    "./span-export-worker.js",
    "../dist/command-line-span-export-worker.mjs",
  ];
  for (const candidate of candidates) {
    const url = new URL(candidate, import.meta.url);
    if (existsSync(url)) return url;
  }
  throw new Error("the span export worker's module is missing: run pnpm build");
}
