import { existsSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { ConfigError } from "@jobtasks/core";
import type { Logger } from "@jobtasks/server";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import { batchData, type BatchData } from "./span-data.js";
import type { ExportWorkerAnswer, ExportWorkerData, ExportWorkerRequest } from "./span-export-worker.js";

/** The SDK's ExportResultCode (in @opentelemetry/core, which is not ours to import). */
const exportSucceeded = 0;
const exportFailed = 1;
/** How long shutdown waits for the worker to send what it holds: the exporter's timeout (10 s unless set), and 5 s. */
function shutdownWaitMs(): number {
  const setting = Number(process.env["OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"] || process.env["OTEL_EXPORTER_OTLP_TIMEOUT"]);
  return (Number.isFinite(setting) && setting > 0 ? setting : 10_000) + 5_000;
}

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
  /** Shut down on purpose: its exit is no news. */
  #stopping = false;

  private constructor(worker: Worker, logger: Logger) {
    this.#worker = worker;
    this.#logger = logger;
    worker.on("message", (answer: ExportWorkerAnswer) => {
      if (answer.type !== "done") return;
      this.#settle(answer.id, answer);
    });
    worker.on("error", (error) => {
      // Its name only: an exporter's error may carry the collector's URL or headers.
      this.#logger.warn({ error: error.name }, "the span export worker failed; spans are no longer exported");
      this.#end("the span export worker failed");
    });
    worker.on("exit", (code) => {
      if (this.#gone === undefined && !this.#stopping)
        this.#logger.warn({ exitCode: code }, "the span export worker exited; spans are no longer exported");
      this.#end("the span export worker exited");
    });
    // Idle, it does not keep the process alive; while an answer is awaited it does (#request), or an
    // awaited flush or shutdown would be left unsettled when nothing else runs.
    worker.unref();
  }

  /** Start the worker and wait until its exporter is built; a missing exporter package is a ConfigError. */
  static async start(options: ExportWorkerData, logger: Logger): Promise<WorkerSpanExporter> {
    const worker = new Worker(workerEntry(), { workerData: options satisfies ExportWorkerData });
    const first = await new Promise<ExportWorkerAnswer>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`the span export worker exited (code ${code}) as it started`)));
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

  /** Send what the worker still holds (waiting the exporter's timeout and 5 s at most), then stop it. */
  async shutdown(): Promise<void> {
    this.#stopping = true;
    if (this.#gone === undefined) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.#request({ type: "shutdown" }, () => resolve())),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, shutdownWaitMs()))),
      ]);
      clearTimeout(timer);
    }
    await this.#worker.terminate();
  }

  #request(
    request: ({ type: "export" } & BatchData) | { type: "flush" | "shutdown" },
    settled: (answer: { code: number; error?: string }) => void,
  ): void {
    if (this.#gone !== undefined) {
      settled({ code: exportFailed, error: this.#gone });
      return;
    }
    const id = this.#nextId++;
    if (this.#pending.size === 0) this.#worker.ref();
    this.#pending.set(id, settled);
    try {
      this.#worker.postMessage({ ...request, id } as ExportWorkerRequest);
    } catch (error) {
      // A batch that cannot be cloned (an attribute no structured clone takes) is this batch's failure only.
      this.#settle(id, { code: exportFailed, error: (error as Error | undefined)?.name || "Error" });
    }
  }

  #settle(id: number, answer: { code: number; error?: string }): void {
    const settled = this.#pending.get(id);
    if (settled === undefined) return;
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#worker.unref();
    settled(answer);
  }

  #end(reason: string): void {
    this.#gone ??= reason;
    // Deleting the entry being visited is safe in a Map iteration.
    for (const id of this.#pending.keys()) this.#settle(id, { code: exportFailed, error: reason });
  }
}

/**
 * The worker's module: the bundled one (bundle-command-line.mjs builds it with the exporters inside) is
 * in dist beside the package's modules and the command line's chunks, and is used by both, so that the
 * exporters need not be installed; the compiled one where no bundle was built; and from the sources (the
 * benchmarks, under tsx, which a worker thread does not inherit on Node 20) the bundle in dist.
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
