// A process that sends one span through WorkerSpanExporter, awaiting each step with nothing else to keep
// it alive (no timer, no socket of its own): worker-span-exporter.test.ts checks that every await settles.
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { createSilentLogger } from "@jobtasks/server";
import { WorkerSpanExporter } from "../../packages/cli/dist/worker-span-exporter.js";

const memory = new InMemorySpanExporter();
new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] })
  .getTracer("test")
  .startSpan("sent before exit")
  .end();
const exporter = await WorkerSpanExporter.start({ url: process.argv[2], protocol: "http/json" }, createSilentLogger());
const result = await new Promise((resolve) => exporter.export(memory.getFinishedSpans(), resolve));
console.log(`exported: ${result.code}`);
await exporter.forceFlush();
await exporter.shutdown();
console.log("shut down");
