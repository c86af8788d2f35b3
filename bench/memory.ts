import { setTimeout as sleep } from "node:timers/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createSilentLogger, runTaskSubscription, type TaskService } from "@jobtasks/server";
import {
  benchCaller,
  benchPrincipal,
  createBenchService,
  createStatelessAdapter,
  startTask,
} from "./support/bench-service.js";
import { describeMachine, formatNumber, heading, markdownTable } from "./support/measure.js";

/**
 * Does memory stay flat? The server stores nothing per task; the only things that grow are the
 * SnapshotReader's caches, each bounded (maxEntries, default 10,000 jobs). So heap should rise while the
 * caches fill and then stop rising, however many tasks go through. Also: what one open task subscription
 * costs (runTaskSubscription, the loop behind subscriptions/listen), in memory and in upstream reads.
 *
 * Run: node --import tsx bench/memory.ts   (it enables --expose-gc itself)
 */

function collectGarbage(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

const gc = collectGarbage();

/** Heap in use after two full collections, in MB. */
async function settledHeapMb(): Promise<number> {
  await sleep(10);
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1024 ** 2;
}

/** Create `count` tasks and poll each once, keeping no reference to any of them. */
async function createAndPoll(service: TaskService, count: number, finished: boolean): Promise<void> {
  const caller = benchCaller();
  const batch = 200;
  // Bounded in time as well as in count: a machine too busy to finish says so instead of running on.
  const deadline = Date.now() + 40_000;
  for (let done = 0; done < count; done += batch) {
    if (Date.now() > deadline)
      throw new Error(`creating ${count} tasks took longer than 40 s; the machine is too busy for this benchmark`);
    await Promise.all(
      Array.from({ length: Math.min(batch, count - done) }, async () => {
        const taskId = await startTask(service, "bench_job", { finished });
        await service.getTask(taskId, caller);
      }),
    );
  }
}

async function heapAfterManyTasks(): Promise<void> {
  // The caches are bounded at 2,000 jobs here (10,000 by default) so that they are full well before the
  // last checkpoint and the whole benchmark fits in pnpm bench's five minutes on a busy machine.
  const maxEntries = 2_000;
  heading(`Heap after creating and polling many tasks (caches bounded at ${formatNumber(maxEntries)} jobs each)`);
  const checkpoints = [5_000, 10_000, 20_000];
  const rows: Array<Array<string | number>> = [];
  const variants = [
    { name: "working jobs (recent-snapshot cache)", finished: false, resultLogBytes: 0 },
    { name: "completed jobs, short result (terminal cache)", finished: true, resultLogBytes: 0 },
    { name: "completed jobs, 4 KB log tail in the result", finished: true, resultLogBytes: 4096 },
  ];
  for (const variant of variants) {
    const { adapter } = createStatelessAdapter({ resultLogBytes: variant.resultLogBytes });
    const service = createBenchService([{ name: "bench", adapter }], { maxEntries });
    const baseline = await settledHeapMb();
    const cells: Array<string | number> = [variant.name, formatNumber(baseline, 1)];
    let created = 0;
    const grown: number[] = [];
    for (const checkpoint of checkpoints) {
      await createAndPoll(service, checkpoint - created, variant.finished);
      created = checkpoint;
      grown.push((await settledHeapMb()) - baseline);
      cells.push(`+${formatNumber(grown.at(-1)!, 1)}`);
    }
    // Growth once the bounded caches are full (the last two checkpoints), and over the whole run.
    const last = checkpoints.length - 1;
    cells.push(
      formatNumber(((grown[last]! - grown[last - 1]!) / (checkpoints[last]! - checkpoints[last - 1]!)) * 1000, 3),
    );
    cells.push(formatNumber((grown[last]! / checkpoints[last]!) * 1000, 2));
    rows.push(cells);
  }
  const [, middle, end] = checkpoints.map((count) => formatNumber(count));
  console.log(
    markdownTable(
      [
        "tasks",
        "baseline MB",
        ...checkpoints.map((count) => `after ${formatNumber(count)} tasks, MB`),
        `MB per 1,000 tasks, ${middle} → ${end}`,
        `MB per 1,000 tasks, all ${end}`,
      ],
      rows,
    ),
  );
}

async function subscriptions(): Promise<void> {
  const count = 2_000;
  const observeMs = 3_000;
  // The adapter suggests polling every 10 s, the GitHub Actions and AWS Batch adapters' default.
  const adapterPollIntervalMs = 10_000;
  heading(
    `${formatNumber(count)} open task subscriptions (runTaskSubscription, in process, default interval; adapter suggests polling every ${adapterPollIntervalMs / 1000} s)`,
  );
  const rows: Array<Array<string | number>> = [];
  for (const shape of ["all on one job", "a job each"] as const) {
    const { adapter, counts } = createStatelessAdapter({ pollIntervalMs: adapterPollIntervalMs });
    const service = createBenchService([{ name: "bench", adapter }]);
    const jobCount = shape === "all on one job" ? 1 : count;
    const taskIds: string[] = [];
    for (let index = 0; index < jobCount; index += 1) taskIds.push(await startTask(service, "bench_job", {}));
    const before = await settledHeapMb();
    // One controller per subscription, as the HTTP server makes one per response.
    const controllers = Array.from({ length: count }, () => new AbortController());
    let messages = 0;
    const running = controllers.map((abort, index) =>
      runTaskSubscription({
        service,
        logger: createSilentLogger(),
        principal: benchPrincipal,
        request: { id: index, taskIds: [taskIds[index % jobCount]], declaresTasks: true },
        signal: abort.signal,
        send: () => {
          messages += 1;
        },
      }),
    );
    // Every subscription has sent its acknowledgement and first notification, and now sleeps.
    await sleep(200);
    const open = await settledHeapMb();
    const readsBefore = counts.getStatus;
    const cpuBefore = process.cpuUsage();
    await sleep(observeMs);
    const cpu = process.cpuUsage(cpuBefore);
    const readsPerSecond = (counts.getStatus - readsBefore) / (observeMs / 1000);
    for (const abort of controllers) abort.abort();
    await Promise.all(running);
    // Drop the benchmark's own references, so that what remains is what the subscriptions left behind.
    controllers.length = 0;
    running.length = 0;
    taskIds.length = 0;
    const closed = await settledHeapMb();
    rows.push([
      shape,
      formatNumber(((open - before) * 1024 ** 2) / count / 1024, 1),
      formatNumber(readsPerSecond, 1),
      formatNumber(jobCount / (adapterPollIntervalMs / 1000), 1),
      formatNumber(((cpu.user + cpu.system) / 1000 / observeMs) * 100, 1),
      formatNumber(closed - before, 2),
      messages,
    ]);
  }
  console.log(
    markdownTable(
      [
        "subscriptions",
        "KB per open subscription",
        "upstream reads/s",
        "reads/s if polled every 10 s",
        "CPU % while open (one core = 100)",
        "MB left after all closed",
        "messages sent",
      ],
      rows,
    ),
  );
  console.log(
    "\n(In process only: over HTTP each subscription also holds a socket and an SSE response, a few KB more.)",
  );
}

export async function runMemory(): Promise<void> {
  await heapAfterManyTasks();
  await subscriptions();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(describeMachine());
  await runMemory();
}
