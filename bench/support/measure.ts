import { availableParallelism, cpus, totalmem } from "node:os";
import { performance } from "node:perf_hooks";

/**
 * Small measuring helpers shared by the benchmarks. Every loop here is bounded twice, by a count and by a
 * time budget, so a slow or overloaded machine makes a benchmark less precise, never endless.
 */

export interface Bounds {
  /** Most operations to run. */
  maxOperations: number;
  /** Stop after this long even when maxOperations is not reached. */
  maxMilliseconds: number;
}

export interface Rate {
  operations: number;
  elapsedMs: number;
  perSecond: number;
  /** Mean cost of one operation, in microseconds. */
  microsecondsEach: number;
}

function rate(operations: number, elapsedMs: number): Rate {
  return {
    operations,
    elapsedMs,
    perSecond: operations / (elapsedMs / 1000),
    microsecondsEach: (elapsedMs * 1000) / operations,
  };
}

/**
 * Run a synchronous operation repeatedly. The clock is read once per batch of 256 so that reading it
 * does not dominate operations that take a few microseconds.
 */
export function measureSync(bounds: Bounds, operation: (index: number) => void): Rate {
  const started = performance.now();
  let done = 0;
  while (done < bounds.maxOperations) {
    const batchEnd = Math.min(done + 256, bounds.maxOperations);
    for (; done < batchEnd; done += 1) operation(done);
    if (performance.now() - started >= bounds.maxMilliseconds) break;
  }
  return rate(done, performance.now() - started);
}

/**
 * measureSync several times and keep the median round: the first round also pays for JIT warm-up, and a
 * noisy neighbour rarely spoils the middle one.
 */
export function measureSyncMedian(bounds: Bounds, rounds: number, operation: (index: number) => void): Rate {
  const results = Array.from({ length: rounds }, () => measureSync(bounds, operation));
  results.sort((a, b) => a.microsecondsEach - b.microsecondsEach);
  return results[Math.floor(rounds / 2)]!;
}

/**
 * Compare synchronous operations fairly on a noisy machine: run them in turns, a small batch each, until
 * the time budget or the round limit is spent, and add up each one's own time. A burst of load from a
 * neighbour then hits every case about equally instead of spoiling whichever happened to run during it.
 * Time is this process's CPU time (user + system), not wall time: on a shared machine the scheduler takes
 * wall time away from us at random, CPU time is what each operation really costs a replica.
 */
export function measureInterleaved(
  operations: ReadonlyArray<(index: number) => void>,
  options: { batchSize: number; maxRounds: number; maxMilliseconds: number },
): Rate[] {
  const spentMs = operations.map(() => 0);
  const counts = operations.map(() => 0);
  const started = performance.now();
  for (let round = 0; round < options.maxRounds; round += 1) {
    operations.forEach((operation, which) => {
      const begun = process.cpuUsage();
      for (let index = 0; index < options.batchSize; index += 1) operation(index);
      const spent = process.cpuUsage(begun);
      spentMs[which]! += (spent.user + spent.system) / 1000;
      counts[which]! += options.batchSize;
    });
    if (performance.now() - started >= options.maxMilliseconds) break;
  }
  return operations.map((_, which) => rate(counts[which]!, spentMs[which]!));
}

/** measureInterleaved for asynchronous operations: each batch runs its operations one after another. */
export async function measureInterleavedAsync(
  operations: ReadonlyArray<(index: number) => Promise<unknown>>,
  options: { batchSize: number; maxRounds: number; maxMilliseconds: number },
): Promise<Rate[]> {
  const spentMs = operations.map(() => 0);
  const counts = operations.map(() => 0);
  const started = performance.now();
  for (let round = 0; round < options.maxRounds; round += 1) {
    for (const [which, operation] of operations.entries()) {
      const begun = process.cpuUsage();
      for (let index = 0; index < options.batchSize; index += 1) await operation(index);
      const spent = process.cpuUsage(begun);
      spentMs[which]! += (spent.user + spent.system) / 1000;
      counts[which]! += options.batchSize;
    }
    if (performance.now() - started >= options.maxMilliseconds) break;
  }
  return operations.map((_, which) => rate(counts[which]!, spentMs[which]!));
}

/** Run an asynchronous operation one at a time. */
export async function measureSequential(bounds: Bounds, operation: (index: number) => Promise<unknown>): Promise<Rate> {
  const started = performance.now();
  let done = 0;
  while (done < bounds.maxOperations && performance.now() - started < bounds.maxMilliseconds) {
    await operation(done);
    done += 1;
  }
  return rate(done, performance.now() - started);
}

export interface ConcurrentResult extends Rate {
  latenciesMs: number[];
}

/**
 * Run an asynchronous operation from `concurrency` loops at once, sharing one operation budget, and record
 * every operation's latency.
 */
export async function measureConcurrent(
  bounds: Bounds,
  concurrency: number,
  operation: (index: number) => Promise<unknown>,
): Promise<ConcurrentResult> {
  const started = performance.now();
  const latenciesMs: number[] = [];
  let issued = 0;
  const loop = async () => {
    while (issued < bounds.maxOperations && performance.now() - started < bounds.maxMilliseconds) {
      const index = issued;
      issued += 1;
      const begun = performance.now();
      await operation(index);
      latenciesMs.push(performance.now() - begun);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  return { ...rate(latenciesMs.length, performance.now() - started), latenciesMs };
}

/** The p-th percentile (0..100) of a list of numbers, nearest-rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** What the numbers were measured on; printed first by every benchmark. */
export function describeMachine(): string {
  const cpu = cpus()[0]?.model.trim() ?? "unknown CPU";
  const memoryGb = (totalmem() / 1024 ** 3).toFixed(1);
  return `${new Date().toISOString()} | node ${process.version} | ${availableParallelism()} cores (${cpu}) | ${memoryGb} GB RAM | ${process.platform} ${process.arch}`;
}

/** A Markdown table, so results can be pasted into BENCHMARKS.md as printed. */
export function markdownTable(header: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const line = (cells: ReadonlyArray<string | number>) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** A number with thousands separators and a fixed number of decimals. */
export function formatNumber(value: number, decimals = 0): string {
  return value.toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

export function heading(title: string): void {
  console.log(`\n## ${title}\n`);
}
