import { performance } from "node:perf_hooks";
import type { TaskService } from "@jobtasks/server";
import { benchCaller, createBenchService, createStatelessAdapter, startTask } from "./support/bench-service.js";
import { describeMachine, formatNumber, heading, markdownTable, measureInterleavedAsync } from "./support/measure.js";

/**
 * What does polling cost, in server CPU and in upstream calls? Agents poll tasks/get; each poll opens the
 * id and asks the SnapshotReader, which may answer from its short cache, join a read already in flight for
 * the same job, or call the adapter's doGetStatus (an upstream API call, often rate-limited).
 *
 * Run: node --import tsx bench/polling-cost.ts
 */

/** A clock the benchmark moves by hand, so simulated minutes of polling take a fraction of a second. */
function manualClock(start = Date.UTC(2026, 0, 15, 9, 0)) {
  const clock = { now: start };
  return { clock, now: () => clock.now };
}

async function throughputCacheOnVersusOff(): Promise<void> {
  heading("tasks/get through TaskService, one working job, instant adapter: cache on vs off");
  const variants = [
    { name: "snapshotCacheMs 1000 (default)", snapshotCacheMs: 1000 },
    { name: "snapshotCacheMs 0 (off)", snapshotCacheMs: 0 },
  ];
  const prepared = await Promise.all(
    variants.map(async (variant) => {
      const { adapter, counts } = createStatelessAdapter();
      const service = createBenchService([{ name: "bench", adapter }], { snapshotCacheMs: variant.snapshotCacheMs });
      const taskId = await startTask(service, "bench_job", {});
      return { variant, service, counts, taskId, readsBefore: counts.getStatus };
    }),
  );
  const caller = benchCaller();
  const rates = await measureInterleavedAsync(
    prepared.map(
      ({ service, taskId }) =>
        () =>
          service.getTask(taskId, caller),
    ),
    { batchSize: 500, maxRounds: 200, maxMilliseconds: 3_000 },
  );
  const baseline = rates[1]!.microsecondsEach;
  console.log(
    markdownTable(
      ["variant", "tasks/get per CPU-second", "CPU µs each", "upstream reads per 1000 gets", "cost vs cache off"],
      prepared.map(({ variant, counts, readsBefore }, which) => {
        const rate = rates[which]!;
        return [
          variant.name,
          formatNumber(rate.perSecond),
          formatNumber(rate.microsecondsEach, 1),
          formatNumber(((counts.getStatus - readsBefore) / rate.operations) * 1000, 1),
          `${formatNumber(rate.microsecondsEach / baseline, 2)}×`,
        ];
      }),
    ),
  );
  console.log("\n(The cache-on loop runs back to back, so nearly every get is a cache hit: this is the best case.)");
}

/** Fire `taskIds.length` concurrent polls and count the upstream reads they cost. */
async function burst(service: TaskService, counts: { getStatus: number }, taskIds: readonly string[]) {
  const before = counts.getStatus;
  const started = performance.now();
  // A caller each, as each HTTP request has its own signal: one signal for a thousand waiting polls would
  // hold a thousand abort listeners at once, and Node warns of a leak that a server never has.
  await Promise.all(taskIds.map((taskId) => service.getTask(taskId, benchCaller())));
  return { reads: counts.getStatus - before, elapsedMs: performance.now() - started };
}

async function concurrentBursts(): Promise<void> {
  heading("Concurrent polls: upstream doGetStatus calls per burst (adapter takes 20 ms per read)");
  const rows: Array<Array<string | number>> = [];
  for (const polls of [10, 100, 1000]) {
    for (const shape of ["same job", "different jobs"] as const) {
      const cells: Array<string | number> = [
        `${polls} polls of ${shape === "same job" ? "the same job" : `${polls} different jobs`}`,
      ];
      for (const snapshotCacheMs of [0, 1000]) {
        const { clock, now } = manualClock();
        const { adapter, counts } = createStatelessAdapter({ readLatencyMs: 20 });
        const service = createBenchService([{ name: "bench", adapter }], { snapshotCacheMs, now });
        const jobCount = shape === "same job" ? 1 : polls;
        const jobs = await Promise.all(Array.from({ length: jobCount }, () => startTask(service, "bench_job", {})));
        // Let the read tools/call made go stale, so the burst starts from a cold cache.
        clock.now += 60_000;
        const taskIds = Array.from({ length: polls }, (_, index) => jobs[index % jobCount]!);
        const first = await burst(service, counts, taskIds);
        // A second identical burst 500 ms later (simulated): the cache, if on, still holds every job.
        clock.now += 500;
        const second = await burst(service, counts, taskIds);
        cells.push(first.reads, second.reads);
        if (snapshotCacheMs === 1000) cells.push(formatNumber(first.elapsedMs, 0));
      }
      rows.push(cells);
    }
  }
  console.log(
    markdownTable(
      [
        "burst",
        "reads, cache off",
        "reads, cache off, again 0.5 s later",
        "reads, cache 1 s",
        "reads, cache 1 s, again 0.5 s later",
        "wall ms (first burst)",
      ],
      rows,
    ),
  );
}

interface PollingScenario {
  name: string;
  agents: number;
  /** Agents per job: all agents on one job, or one job each. */
  sharedJob: boolean;
  pollEveryMs: number;
}

/**
 * Agents poll on a fixed interval, their phases spread evenly, for `simulatedMs` of simulated time; the
 * clock jumps from one poll time to the next. Returns upstream reads per simulated second.
 */
async function simulatePolling(scenario: PollingScenario, snapshotCacheMs: number, simulatedMs: number) {
  const { clock, now } = manualClock();
  const { adapter, counts } = createStatelessAdapter();
  const service = createBenchService([{ name: "bench", adapter }], { snapshotCacheMs, now });
  const jobCount = scenario.sharedJob ? 1 : scenario.agents;
  const jobs = await Promise.all(Array.from({ length: jobCount }, () => startTask(service, "bench_job", {})));
  const start = clock.now + 60_000;
  const before = counts.getStatus;
  const caller = benchCaller();
  // Each agent's polls fall on its own phase; group the polls by the moment they happen.
  const pollsAt = new Map<number, string[]>();
  for (let agent = 0; agent < scenario.agents; agent += 1) {
    const phase = Math.floor((agent * scenario.pollEveryMs) / scenario.agents);
    for (let at = phase; at < simulatedMs; at += scenario.pollEveryMs) {
      const list = pollsAt.get(at) ?? [];
      list.push(jobs[agent % jobCount]!);
      pollsAt.set(at, list);
    }
  }
  let polls = 0;
  for (const at of [...pollsAt.keys()].sort((a, b) => a - b)) {
    clock.now = start + at;
    const due = pollsAt.get(at)!;
    polls += due.length;
    await Promise.all(due.map((taskId) => service.getTask(taskId, caller)));
  }
  const seconds = simulatedMs / 1000;
  return { pollsPerSecond: polls / seconds, readsPerSecond: (counts.getStatus - before) / seconds, jobCount };
}

/** Jobs created and then left alone: nothing in the server reads them on its own. */
async function readsWhenNobodyPolls(jobCount: number, simulatedMs: number): Promise<number> {
  const { clock, now } = manualClock();
  const { adapter, counts } = createStatelessAdapter();
  const service = createBenchService([{ name: "bench", adapter }], { now });
  await Promise.all(Array.from({ length: jobCount }, () => startTask(service, "bench_job", {})));
  const before = counts.getStatus;
  // Let real timers run too, in case anything were scheduled, while simulated time passes.
  for (let step = 0; step < 10; step += 1) {
    clock.now += simulatedMs / 10;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await service.close();
  return counts.getStatus - before;
}

async function steadyPolling(): Promise<void> {
  const simulatedMs = 5 * 60_000;
  heading("Steady polling, 5 simulated minutes: upstream reads per second");
  const scenarios: PollingScenario[] = [
    { name: "100 agents, one shared job, every 2 s", agents: 100, sharedJob: true, pollEveryMs: 2000 },
    { name: "100 agents, a job each, every 2 s", agents: 100, sharedJob: false, pollEveryMs: 2000 },
    {
      name: "100 agents, a job each, every 0.5 s (ignoring pollIntervalMs)",
      agents: 100,
      sharedJob: false,
      pollEveryMs: 500,
    },
  ];
  const rows: Array<Array<string | number>> = [];
  const idleReads = await readsWhenNobodyPolls(1000, simulatedMs);
  rows.push([
    "1,000 jobs created, nobody polls (default cache)",
    "0.0",
    "—",
    formatNumber(idleReads / (simulatedMs / 1000), 1),
    "",
    formatNumber(idleReads / 1000 / (simulatedMs / 1000), 2),
  ]);
  for (const scenario of scenarios) {
    const off = await simulatePolling(scenario, 0, simulatedMs);
    const on = await simulatePolling(scenario, 1000, simulatedMs);
    rows.push([
      scenario.name,
      formatNumber(on.pollsPerSecond, 1),
      formatNumber(off.readsPerSecond, 1),
      formatNumber(on.readsPerSecond, 1),
      `${formatNumber(off.readsPerSecond / on.readsPerSecond, 1)}×`,
      // The cache window is 1 s, so reads per second per job is reads per job per window.
      formatNumber(on.readsPerSecond / on.jobCount, 2),
    ]);
  }
  console.log(
    markdownTable(
      [
        "scenario",
        "tasks/get per s",
        "upstream reads/s, cache off",
        "upstream reads/s, cache 1 s",
        "saved by cache",
        "reads per job per 1 s window, cache 1 s",
      ],
      rows,
    ),
  );
}

export async function runPollingCost(): Promise<void> {
  await throughputCacheOnVersusOff();
  await concurrentBursts();
  await steadyPolling();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(describeMachine());
  await runPollingCost();
}
