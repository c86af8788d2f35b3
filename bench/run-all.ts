import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describeMachine } from "./support/measure.js";

/**
 * Every benchmark, one after another, each in its own process (so the memory benchmark starts from a
 * clean heap and no benchmark inherits another's JIT state or garbage). Prints Markdown to stdout.
 *
 * Run: node --import tsx bench/run-all.ts
 */

const benchmarks = ["task-id-cost.ts", "polling-cost.ts", "http-throughput.ts", "memory.ts", "model-turns.ts", "stdio-startup.ts"];
/** No single benchmark should come near this; it only guarantees the suite ends. */
const perBenchmarkTimeoutMs = 120_000;

console.log(`# jobtasks benchmarks\n\n${describeMachine()}`);
let failed = 0;
for (const file of benchmarks) {
  const started = Date.now();
  const result = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(new URL(file, import.meta.url))], {
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
    timeout: perBenchmarkTimeoutMs,
    killSignal: "SIGKILL",
  });
  // Each benchmark prints the machine line first; the suite printed it once already.
  console.log(result.stdout.split("\n").slice(1).join("\n").trimEnd());
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    failed += 1;
    console.log(`\n**${file} failed** (exit ${result.status ?? result.signal}, ${seconds} s)`);
  } else {
    console.log(`\n_${file}: ${seconds} s_`);
  }
}
process.exitCode = failed === 0 ? 0 : 1;
