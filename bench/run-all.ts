import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describeMachine } from "./support/measure.js";

/**
 * Every benchmark, one after another, each in its own process (so the memory benchmark starts from a
 * clean heap and no benchmark inherits another's JIT state or garbage). Prints Markdown to stdout.
 *
 * Run: pnpm bench (builds, then runs this), or node --import tsx bench/run-all.ts after a build.
 */

const benchmarks = [
  "task-id-cost.ts",
  "polling-cost.ts",
  "http-throughput.ts",
  "peer-comparison.ts",
  "memory.ts",
  "model-turns.ts",
  "stdio-startup.ts",
  "events.ts",
  "events-budget.ts",
  "kubernetes-watch.ts",
  "token-verification.ts",
];
/** No single benchmark should come near this; it only guarantees the suite ends. */
const perBenchmarkTimeoutMs = 120_000;
/** The whole suite stays under 5 minutes: a benchmark that would start after this is skipped, and said so. */
const suiteBudgetMs = 280_000;
const suiteStarted = Date.now();

console.log(`# jobtasks benchmarks\n\n${describeMachine()}`);
let failed = 0;
for (const file of benchmarks) {
  const started = Date.now();
  const left = suiteBudgetMs - (started - suiteStarted);
  if (left < 10_000) {
    failed += 1;
    console.log(`\n**${file} skipped**: the suite's ${suiteBudgetMs / 1000} s budget is spent`);
    continue;
  }
  const result = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(new URL(file, import.meta.url))], {
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
    timeout: Math.min(perBenchmarkTimeoutMs, left),
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
console.log(`\n_all benchmarks: ${((Date.now() - suiteStarted) / 1000).toFixed(1)} s_`);
process.exitCode = failed === 0 ? 0 : 1;
