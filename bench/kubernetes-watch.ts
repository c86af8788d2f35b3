import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { DetailedTask, TaskService } from "@jobtasks/server";
import { kubernetes, nodeRunsKubernetesClient, type KubernetesAdapter } from "@jobtasks/kubernetes";
import { FakeKubernetesApi } from "../adapters/kubernetes/src/test-support/fake-kubernetes-api.js";
import { benchCaller, createBenchService, startTask } from "./support/bench-service.js";
import { describeMachine, formatNumber, heading, markdownTable, percentile } from "./support/measure.js";

/**
 * The Kubernetes adapter's watch (issue 25), against the fake API server of its tests on 127.0.0.1, with
 * @kubernetes/client-node unchanged: 300 followed Jobs polled every second through the TaskService (what
 * they cost the API: the watch and its re-lists, no request per Job), the lag from a watch event to a
 * tasks/get that shows it, and how fast a 410 Gone or a dropped watch is caught up, checking that no task
 * ever moves backwards. Every loop is bounded by a count and a time limit.
 *
 * Run (Node >= 22.19, the client's): /tmp/node22/node_modules/.bin/node --import tsx bench/kubernetes-watch.ts
 * BENCH_K8S_POLL_SECONDS sets the polling phase's length (default 20 s, at most 300; the target speaks of 5 minutes);
 * BENCH_K8S_PARTS="2" (or "1,3") runs only those parts.
 */

if (!nodeRunsKubernetesClient()) {
  console.log(`Skipped: @kubernetes/client-node 2.x needs Node >= 22.19; this is Node ${process.versions.node}.`);
  process.exit(0);
}

const jobCount = 300;
const pollSeconds = Math.min(300, Math.max(5, Number(process.env["BENCH_K8S_POLL_SECONDS"] ?? "20")));
const namespace = "batch";
const instance = "cluster";
const parts = new Set((process.env["BENCH_K8S_PARTS"] ?? "1,2,3").split(",").map((part) => part.trim()));

interface Setup {
  fake: FakeKubernetesApi;
  adapter: KubernetesAdapter;
  service: TaskService;
  tasks: Array<{ taskId: string; name: string }>;
  /** The highest succeeded count each task has shown: a lower one later would be a task moving backwards. */
  shown: Map<string, number>;
  backwards: number;
}

async function setUp(snapshotCacheMs: number): Promise<Setup> {
  const fake = await new FakeKubernetesApi().start();
  fake.bookmarkIntervalMs = 1000;
  const adapter = kubernetes(
    {
      connection: { mode: "kubeconfig", kubeconfig: fake.kubeconfigPath },
      allowedNamespaces: [namespace],
      watch: { backoffMs: 100, maxBackoffMs: 2000, timeoutSeconds: 300 },
      tools: [
        {
          name: "crunch",
          description: "Crunch a shard",
          namespace,
          inputs: { shard: { type: "integer", minimum: 0, maximum: 100_000 } },
          template: { image: "example.com/crunch:1", args: ["--shard", "{{shard}}"], completions: 1000 },
        },
      ],
    },
    {},
  );
  const service = createBenchService([{ name: instance, adapter }], { snapshotCacheMs });
  const tasks: Setup["tasks"] = [];
  for (let shard = 0; shard < jobCount; shard += 1) {
    const taskId = await startTask(service, "crunch", { shard });
    const name = [...fake.jobs.get(namespace)!.keys()].at(-1)!;
    tasks.push({ taskId, name });
  }
  // The Job controller's part: every Job runs one ready pod.
  for (const { name } of tasks)
    fake.updateJob(
      namespace,
      name,
      (job) => (job.status = { startTime: new Date().toISOString(), active: 1, ready: 1, succeeded: 0 }),
    );
  return { fake, adapter, service, tasks, shown: new Map(), backwards: 0 };
}

function succeededOf(task: DetailedTask): number {
  const match = /(\d+)\/\d+ succeeded/.exec(task.statusMessage ?? "");
  return match ? Number(match[1]) : -1;
}

async function poll(setup: Setup, task: { taskId: string }): Promise<number> {
  const shown = succeededOf((await setup.service.getTask(task.taskId, benchCaller())) as DetailedTask);
  const before = setup.shown.get(task.taskId) ?? -1;
  if (shown < before) setup.backwards += 1;
  else setup.shown.set(task.taskId, shown);
  return shown;
}

/** Advance one Job: its succeeded count goes up by one. Returns the new count. */
function advance(setup: Setup, name: string): number {
  return setup.fake.updateJob(namespace, name, (job) => (job.status.succeeded += 1)).status.succeeded as number;
}

async function tearDown(setup: Setup): Promise<void> {
  await setup.service.close();
  await setup.adapter.close?.();
  await setup.fake.close();
}

console.log(`# Kubernetes Jobs: one watch for many tasks\n\n${describeMachine()}`);

// --- 1. 300 followed Jobs, each polled every second --------------------------------------------------
if (parts.has("1")) {
  heading(`1. ${jobCount} followed Jobs, each polled every second for ${pollSeconds} s (the target says 5 minutes)`);
  {
    const setup = await setUp(1000);
    // Warm up: the watch is listed and running once every task has been read once.
    for (const task of setup.tasks) await poll(setup, task);
    await sleep(1500);
    const before = { requests: setup.fake.requests.length, statistics: setup.adapter.watchStatistics() };
    const startedAt = performance.now();
    let polls = 0;
    let changes = 0;
    const readTimes: number[] = [];
    for (
      let second = 0;
      second < pollSeconds && performance.now() - startedAt < (pollSeconds + 30) * 1000;
      second += 1
    ) {
      const tick = performance.now();
      // The cluster moves: ten Jobs advance each second.
      for (let index = 0; index < 10; index += 1) {
        advance(setup, setup.tasks[(second * 10 + index) % jobCount]!.name);
        changes += 1;
      }
      for (const task of setup.tasks) {
        const readStart = performance.now();
        await poll(setup, task);
        readTimes.push(performance.now() - readStart);
        polls += 1;
      }
      const left = 1000 - (performance.now() - tick);
      if (left > 0) await sleep(left);
    }
    const during = setup.fake.requests.slice(before.requests);
    const statistics = setup.adapter.watchStatistics();
    console.log(
      markdownTable(
        [
          "Jobs",
          "polls (tasks/get)",
          "Job changes",
          "watch requests",
          "re-lists",
          "Job GETs",
          "pod reads",
          "other requests",
          "tasks/get p50 ms",
          "p99 ms",
        ],
        [
          [
            jobCount,
            formatNumber(polls),
            changes,
            during.filter((request) => request.watch).length,
            statistics.lists - before.statistics.lists,
            during.filter((request) => !request.watch && /\/jobs\/[^/]+$/.test(request.path)).length,
            during.filter((request) => request.path.includes("/pods")).length,
            during.filter(
              (request) => !request.watch && !request.path.includes("/pods") && !/\/jobs\/[^/]+$/.test(request.path),
            ).length,
            formatNumber(percentile(readTimes, 50), 3),
            formatNumber(percentile(readTimes, 99), 3),
          ],
        ],
      ),
    );
    console.log(
      `\nTarget: upstream requests <= 1 watch + re-lists, no per-Job GET in steady state. Open watch connections at the end: ${setup.fake.openWatches}; tasks that moved backwards: ${setup.backwards}.`,
    );
    await tearDown(setup);
  }
}

// --- 2. Lag: a watch event to the tasks/get that shows it -------------------------------------------
if (parts.has("2")) {
  heading("2. Lag from a Job's change (written to the API) to the first tasks/get showing it");
  {
    const rows: Array<Array<string | number>> = [];
    for (const snapshotCacheMs of [0, 1000]) {
      const setup = await setUp(snapshotCacheMs);
      for (const task of setup.tasks) await poll(setup, task);
      await sleep(1000);
      const lags: number[] = [];
      const deadline = performance.now() + 60_000;
      // With the server's cache each change waits out its second: fewer changes there keep the run short.
      const changeCount = snapshotCacheMs === 0 ? 100 : 20;
      for (let change = 0; change < changeCount && performance.now() < deadline; change += 1) {
        const task = setup.tasks[(change * 7) % jobCount]!;
        const changedAt = performance.now();
        const expected = advance(setup, task.name);
        // The agent polls this task every 5 ms until it shows the change (at most 3 s).
        while ((await poll(setup, task)) < expected && performance.now() - changedAt < 3000) await sleep(5);
        lags.push(performance.now() - changedAt);
        await sleep(20);
      }
      rows.push([
        `${snapshotCacheMs} ms`,
        lags.length,
        formatNumber(percentile(lags, 50), 1),
        formatNumber(percentile(lags, 99), 1),
        formatNumber(Math.max(...lags), 1),
        setup.backwards,
      ]);
      await tearDown(setup);
    }
    console.log(
      markdownTable(["server snapshotCacheMs", "changes", "p50 ms", "p99 ms", "max ms", "tasks backwards"], rows),
    );
    console.log(
      "\nTarget: <= 100 ms. The adapter answers from the watch at once, and tells the server of each change (watchJobChanges), which drops the Job's cached snapshot: with the default 1000 ms cache too, the next read shows it.",
    );
  }
}

// --- 3. A 410 Gone and a dropped watch: caught up, nothing backwards --------------------------------
if (parts.has("3")) {
  heading(
    "3. A 410 Gone and a dropped watch, with every Job changing meanwhile: time until all 300 tasks show the change",
  );
  {
    const rows: Array<Array<string | number>> = [];
    for (const fault of [
      "410 Gone (ERROR event)",
      "410 Gone (HTTP status on the resumed watch)",
      "dropped watch connection",
    ]) {
      const setup = await setUp(0);
      setup.fake.goneAs = fault.includes("HTTP") ? "status" : "event";
      for (const task of setup.tasks) await poll(setup, task);
      await sleep(1500);
      const before = { requests: setup.fake.requests.length, statistics: setup.adapter.watchStatistics() };
      const faultAt = performance.now();
      if (fault.startsWith("410 Gone (ERROR")) setup.fake.expireWatches();
      else setup.fake.dropWatches();
      const expected = new Map(setup.tasks.map((task) => [task.taskId, advance(setup, task.name)]));
      if (fault.includes("HTTP")) setup.fake.compact();
      let caughtUp = Number.NaN;
      while (performance.now() - faultAt < 15_000) {
        let behind = 0;
        for (const task of setup.tasks) if ((await poll(setup, task)) < expected.get(task.taskId)!) behind += 1;
        if (behind === 0) {
          caughtUp = performance.now() - faultAt;
          break;
        }
        await sleep(50);
      }
      // Steady again: reads come from the watch, no Job GET.
      await sleep(500);
      const steadyFrom = setup.fake.requests.length;
      for (const task of setup.tasks) await poll(setup, task);
      const during = setup.fake.requests.slice(before.requests, steadyFrom);
      const statistics = setup.adapter.watchStatistics();
      rows.push([
        fault,
        Number.isNaN(caughtUp) ? "not within 15 s" : formatNumber(caughtUp, 0),
        statistics.lists - before.statistics.lists,
        during.filter((request) => request.watch).length,
        during.filter((request) => !request.watch && /\/jobs\/[^/]+$/.test(request.path)).length,
        setup.fake.requests.slice(steadyFrom).length,
        setup.backwards,
      ]);
      await tearDown(setup);
    }
    console.log(
      markdownTable(
        [
          "fault",
          "all 300 caught up after ms",
          "re-lists",
          "watch requests",
          "Job GETs while out of sync",
          "requests of 300 reads after",
          "tasks backwards",
        ],
        rows,
      ),
    );
    console.log("\nTarget: caught up within 5 s, no task moves backwards.");
  }
}
