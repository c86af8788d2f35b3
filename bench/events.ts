import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { startHttpServer, createSilentLogger, type DetailedTask } from "@jobtasks/server";
import { rawResult } from "../test/support/raw-rpc.js";
import { openListenStream, type ListenMessage } from "../test/support/listen-stream.js";
import { benchCaller, startTask } from "./support/bench-service.js";
import { createCountingGithub, type BenchJob } from "./support/counting-fake-github.js";
import {
  changeStep,
  countsSince,
  createService,
  deliveryHeaders,
  githubAdapter,
  instance,
  iso,
  receiveInProcess,
  sign,
  simulatedSetup,
  snapshotCounts,
  webhookSecret,
  workflowJobDelivery,
  workflowRunDelivery,
  type Delivery,
} from "./support/github-event-deliveries.js";
import { describeMachine, formatNumber, heading, markdownTable, percentile } from "./support/measure.js";

/**
 * Upstream events (issue 20), measured with the GitHub Actions adapter and a fake GitHub that counts
 * requests: how long a signed delivery takes to reach tasks/get and a subscriptions/listen stream, what
 * following a run costs upstream with events and without, and what 1,000 forged deliveries do (nothing, it
 * should be). What 1,000 runs cost one token is events-budget.ts. Everything listens on 127.0.0.1 only; every loop is
 * bounded by a count and a time limit.
 *
 * Run: node --import tsx bench/events.ts   (after pnpm build; it enables --expose-gc itself)
 */

function collectGarbage(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}
const gc = collectGarbage();

// --- 1 and 2: one process, real HTTP --------------------------------------------------------------

async function post(url: string, body: string | Uint8Array, headers: Record<string, string>): Promise<number> {
  const response = await fetch(url, { method: "POST", headers, body });
  await response.arrayBuffer();
  return response.status;
}

/** A step starts in the run's one job, upstream; returns the job as GitHub's workflow_job delivery carries it. */
function startStep(server: Server, runId: number, step: string): BenchJob {
  const job: BenchJob = {
    id: runId * 10,
    name: "build",
    status: "in_progress",
    conclusion: null,
    currentStep: step,
    startedAt: iso(Date.now()),
  };
  server.github.update(runId, { updatedAt: iso(Date.now()), jobs: [job] });
  return job;
}

async function startServerWithGithub() {
  const github = createCountingGithub();
  const baseUrl = await github.listen();
  const adapter = githubAdapter(github, { events: true, baseUrl });
  const service = createService(adapter);
  const server = await startHttpServer({
    service,
    logger: createSilentLogger(),
    name: "jobtasks-bench",
    version: "0.0.0",
    host: "127.0.0.1",
    port: 0,
  });
  let nextRunId = 7_100_000_001;
  const follow = async () => {
    const runId = nextRunId++;
    github.addRun(runId, { updatedAt: iso(Date.now() - 60_000) });
    const created = await rawResult(server.url, "tools/call", { name: "watch_run", arguments: { runId } });
    return { runId, taskId: created["taskId"] as string };
  };
  return {
    github,
    service,
    url: server.url,
    hooks: new URL(`/hooks/${instance}`, server.url).href,
    follow,
    async close() {
      await server.close();
      await service.close();
      await github.close();
    },
  };
}

type Server = Awaited<ReturnType<typeof startServerWithGithub>>;

interface LagSample {
  ms: number;
  /** tasks/get calls until the change showed (1: the first call after the 202 showed it). */
  gets: number;
}

/** POST the delivery, then tasks/get until the task shows the change; the time from the POST on. */
async function deliverThenGet(
  server: Server,
  taskId: string,
  delivery: Delivery,
  shows: (task: Record<string, any>) => boolean,
): Promise<LagSample> {
  const started = performance.now();
  const status = await post(server.hooks, delivery.body, deliveryHeaders(delivery));
  if (status !== 202) throw new Error(`the delivery was answered ${status}`);
  for (let gets = 1; gets <= 200; gets += 1) {
    const task = await rawResult(server.url, "tasks/get", { taskId });
    if (shows(task)) return { ms: performance.now() - started, gets };
  }
  throw new Error("tasks/get never showed the delivered change");
}

async function statusLag(deliveries: number, maxMs: number): Promise<void> {
  heading(`Status lag: signed delivery (POST /hooks/github) to tasks/get showing the change, one process`);
  const server = await startServerWithGithub();
  try {
    const kinds = {
      running: [] as LagSample[],
      completed: [] as LagSample[],
      cancelled: [] as LagSample[],
    };
    // The runs are followed first (and read once), so the timed loop holds deliveries and reads only.
    const followed: Array<{ runId: number; taskId: string }> = [];
    for (let index = 0; index < deliveries / 4; index += 10) {
      const batch = await Promise.all(Array.from({ length: 10 }, () => server.follow()));
      await Promise.all(batch.map((run) => rawResult(server.url, "tasks/get", { taskId: run.taskId })));
      followed.push(...batch);
    }
    const started = performance.now();
    // A step starts in each run (workflow_job): its payload carries the job, and the run's snapshot needs no read.
    for (const [index, { runId, taskId }] of [1, 2, 3].flatMap(() => [...followed.entries()])) {
      if (performance.now() - started > maxMs) break;
      const step = `Step ${kinds.running.length} of run ${index}`;
      const job = startStep(server, runId, step);
      kinds.running.push(
        await deliverThenGet(server, taskId, workflowJobDelivery(runId, job), (task) =>
          String(task["statusMessage"]).includes(step),
        ),
      );
    }
    // Then half the runs finish (workflow_run completed: attempt, jobs and artifacts are read), half are
    // cancelled (the payload says all: no read).
    for (const [index, { runId, taskId }] of followed.entries()) {
      if (performance.now() - started > maxMs) break;
      const finishedAt = iso(Date.now() + 1000);
      const conclusion = index % 2 === 0 ? "success" : "cancelled";
      server.github.update(runId, { status: "completed", conclusion, updatedAt: finishedAt });
      (conclusion === "success" ? kinds.completed : kinds.cancelled).push(
        await deliverThenGet(
          server,
          taskId,
          workflowRunDelivery(runId, "completed", conclusion, finishedAt),
          (task) => task["status"] === (conclusion === "success" ? "completed" : "cancelled"),
        ),
      );
    }
    const row = (name: string, samples: LagSample[]) => {
      const times = samples.map((sample) => sample.ms);
      return [
        name,
        samples.length,
        formatNumber(percentile(times, 50), 1),
        formatNumber(percentile(times, 99), 1),
        formatNumber(Math.max(...times), 1),
        `${samples.filter((sample) => sample.gets === 1).length} of ${samples.length}`,
      ];
    };
    const all = [...kinds.running, ...kinds.completed, ...kinds.cancelled];
    console.log(
      markdownTable(
        ["delivery", "deliveries", "p50 ms", "p99 ms", "max ms", "first tasks/get after the 202 showed it"],
        [
          row("workflow_job in_progress, a new step (the payload's job: no read)", kinds.running),
          row("workflow_run completed (read again: attempt + jobs + artifacts)", kinds.completed),
          row("workflow_run cancelled (the payload's snapshot, no read)", kinds.cancelled),
          row("all", all),
        ],
      ),
    );
    console.log(
      `\nTarget: p99 ≤ 250 ms. Measured p99 over all ${all.length} deliveries: ${formatNumber(
        percentile(
          all.map((sample) => sample.ms),
          99,
        ),
        1,
      )} ms.`,
    );
  } finally {
    await server.close();
  }
}

async function pushLag(streams: number, deliveries: number, maxMs: number): Promise<void> {
  heading("Push: signed delivery to notifications/tasks on a subscriptions/listen stream, one process");
  const server = await startServerWithGithub();
  const opened: Array<{
    runId: number;
    arrivals: Array<{ at: number; message: ListenMessage }>;
    close(): Promise<void>;
  }> = [];
  try {
    for (let index = 0; index < streams; index += 1) {
      const { runId, taskId } = await server.follow();
      const stream = await openListenStream(server.url, [taskId]);
      const arrivals: Array<{ at: number; message: ListenMessage }> = [];
      // Stamp each message as it is parsed, so the figure does not include the helper's 10 ms look-ups.
      const push = stream.messages.push.bind(stream.messages);
      stream.messages.push = (...messages: ListenMessage[]) => {
        for (const message of messages) arrivals.push({ at: performance.now(), message });
        return push(...messages);
      };
      await stream.waitFor((message) => message.method === "notifications/tasks");
      opened.push({ runId, arrivals, close: () => stream.close() });
    }
    const samples: number[] = [];
    let missed = 0;
    const started = performance.now();
    for (let index = 0; index < deliveries && performance.now() - started < maxMs; index += 1) {
      const target = opened[index % opened.length]!;
      const step = `Pushed step ${index}`;
      const delivery = workflowJobDelivery(target.runId, startStep(server, target.runId, step));
      const sentAt = performance.now();
      const status = await post(server.hooks, delivery.body, deliveryHeaders(delivery));
      if (status !== 202) throw new Error(`the delivery was answered ${status}`);
      const deadline = sentAt + 5000;
      let arrived: number | undefined;
      while (arrived === undefined && performance.now() < deadline) {
        arrived = target.arrivals.find(
          (entry) => entry.at >= sentAt && String(entry.message.params?.["statusMessage"]).includes(step),
        )?.at;
        if (arrived === undefined) await new Promise((resolve) => setTimeout(resolve, 1));
      }
      if (arrived === undefined) missed += 1;
      else samples.push(arrived - sentAt);
    }
    console.log(
      markdownTable(
        ["streams", "deliveries", "notifications within 5 s", "p50 ms", "p99 ms", "max ms"],
        [
          [
            streams,
            samples.length + missed,
            samples.length,
            formatNumber(percentile(samples, 50), 1),
            formatNumber(percentile(samples, 99), 1),
            formatNumber(Math.max(...samples), 1),
          ],
        ],
      ),
    );
    console.log(
      `\nTarget: p99 ≤ 250 ms. Each delivery is a workflow_job in_progress (its payload gives the snapshot, no read); the streams' own re-read interval is the adapter's 10 s, so each notification here was woken by its delivery.`,
    );
  } finally {
    for (const entry of opened) await entry.close();
    await server.close();
  }
}

// --- 3 and 4: simulated clock, the fake called in process ------------------------------------------

async function oneRunTenMinutes(): Promise<void> {
  heading("Upstream requests for one followed run: 1 client polling every second for 10 simulated minutes");
  const tenMinutesMs = 10 * 60_000;
  const rows: Array<Array<string | number>> = [];
  const variants = [
    { name: "on, GitHub's workflow_run in_progress as the run starts", events: true, deliver: true, startEvent: true },
    {
      name: "on, the run followed before its first event (another run's delivery came first)",
      events: true,
      deliver: true,
      startEvent: false,
      earlierDelivery: true,
    },
    {
      name: "on, the run followed before the instance's first delivery (none for a minute)",
      events: true,
      deliver: true,
      startEvent: false,
    },
    { name: "configured, but no delivery arrives (a misconfigured webhook)", events: true, deliver: false },
    { name: "off", events: false, deliver: false },
  ];
  for (const { name, events, deliver, startEvent, earlierDelivery } of variants) {
    // Without deliveries every poll is a read, each about 25 ms of wall time through octokit's throttling
    // queue: two simulated minutes, scaled to ten, say the same.
    const simulatedMs = deliver ? tenMinutesMs : 2 * 60_000;
    const scale = tenMinutesMs / simulatedMs;
    const setup = await simulatedSetup(events);
    const runId = 7_200_000_001;
    setup.github.addRun(runId, { updatedAt: iso(setup.clock.now) });
    // A run nobody here follows changed, and GitHub said so: this instance's webhook works.
    if (earlierDelivery)
      await receiveInProcess(
        setup.service,
        setup.adapter,
        workflowRunDelivery(7_199_999_999, "queued", null, iso(setup.clock.now)),
      );
    const taskId = await startTask(setup.service, "watch_run", { runId });
    const start = setup.clock.now;
    const before = snapshotCounts(setup);
    // The run's life upstream: a new step every minute (workflow_job events), then it completes at 9:55.
    const changes = new Map<number, () => Promise<void>>();
    if (startEvent)
      changes.set(500, () =>
        receiveInProcess(
          setup.service,
          setup.adapter,
          workflowRunDelivery(runId, "in_progress", null, iso(setup.clock.now)),
        ),
      );
    for (let minute = 1; minute <= 9; minute += 1)
      changes.set(minute * 60_000 + 500, () => changeStep(setup, runId, `Step ${minute}`, deliver));
    changes.set(595_500, async () => {
      setup.github.update(runId, { status: "completed", conclusion: "success", updatedAt: iso(setup.clock.now) });
      if (deliver)
        await receiveInProcess(
          setup.service,
          setup.adapter,
          workflowRunDelivery(runId, "completed", "success", iso(setup.clock.now)),
        );
    });
    const moments = [
      ...new Set([...changes.keys(), ...Array.from({ length: simulatedMs / 1000 }, (_, second) => second * 1000)]),
    ];
    let polls = 0;
    let status = "working";
    for (const at of moments.sort((a, b) => a - b)) {
      if (at >= simulatedMs || status !== "working") break;
      setup.clock.now = start + at;
      const change = changes.get(at);
      if (change) await change();
      else {
        polls += 1;
        status = ((await setup.service.getTask(taskId, benchCaller())) as DetailedTask).status;
      }
    }
    const spent = countsSince(setup, before);
    const eventCount = deliver ? changes.size : 0;
    const budget = eventCount + tenMinutesMs / 30_000;
    const scaled = (value: number) =>
      scale === 1 ? String(value) : `${formatNumber(value * scale)} (${value} in 2 min × 5)`;
    rows.push([
      name,
      scaled(polls),
      eventCount,
      scaled(spent.reads),
      deliver
        ? `≤ ${budget} (${eventCount} events + ${tenMinutesMs / 30_000} × 30 s): ${spent.reads <= budget ? "met" : "missed"}`
        : events
          ? "polled as without events (as it must)"
          : "",
      scaled(spent.all),
      scaled(spent.notModified),
      spent.charged,
      status,
    ]);
    await setup.service.close();
  }
  console.log(
    markdownTable(
      [
        "events",
        "tasks/get",
        "events delivered",
        "status reads",
        "target (events on)",
        "GitHub requests",
        "of them 304 (free)",
        "charged to the token (not scaled)",
        "task at the end",
      ],
      rows,
    ),
  );
  console.log(
    "\nA status read of a running run is two GitHub requests (the attempt and its jobs), of a finished one three (and the artifacts). Each new step comes with a workflow_job delivery, whose payload gives the run's snapshot without a read once a read has listed the run's jobs; the completion's result is read. The instance's events count as arriving from its first verified delivery, for every job of it; before one, and 10 minutes after the last, its jobs are polled as without events.",
  );
}

// --- 5: forged deliveries --------------------------------------------------------------------------

async function forgedDeliveries(perKind: number, maxMs: number): Promise<void> {
  heading(`Forged deliveries: ${formatNumber(perKind * 5)} to a server following a run with a listen stream open`);
  const server = await startServerWithGithub();
  try {
    const { runId, taskId } = await server.follow();
    const stream = await openListenStream(server.url, [taskId]);
    await stream.waitFor((message) => message.method === "notifications/tasks");
    // One real delivery first: its id and signature are what an attacker who saw it could replay.
    const step = "Captured step";
    const captured = workflowJobDelivery(runId, startStep(server, runId, step));
    await deliverThenGet(server, taskId, captured, (task) => String(task["statusMessage"]).includes(step));
    await stream.waitFor((message) => String(message.params?.["statusMessage"]).includes(step));
    const taskBefore = await rawResult(server.url, "tasks/get", { taskId });
    const messagesBefore = stream.messages.length;
    const requestsBefore = server.github.counts.all;

    const completed = (index: number) => workflowRunDelivery(runId, "completed", "failure", iso(Date.now() + index));
    const kinds: Array<{ name: string; send(index: number): Promise<number> }> = [
      {
        name: "signed with another secret",
        send: (index) => {
          const delivery = completed(index);
          return post(
            server.hooks,
            delivery.body,
            deliveryHeaders(delivery, sign("not-the-webhook-secret-01234", delivery.body)),
          );
        },
      },
      {
        name: "replayed: a real delivery's id and signature, another body",
        send: (index) =>
          post(server.hooks, completed(index).body, deliveryHeaders(captured, sign(webhookSecret, captured.body))),
      },
      {
        name: "truncated: the signature of the whole body, half the body",
        send: (index) => {
          const delivery = completed(index);
          return post(server.hooks, delivery.body.slice(0, delivery.body.length / 2), deliveryHeaders(delivery));
        },
      },
      {
        name: "huge: 1 MiB + 1 byte, signed right",
        send: (index) => {
          const delivery = completed(index);
          const body = delivery.body + " ".repeat(1024 * 1024 + 1 - Buffer.byteLength(delivery.body));
          return post(server.hooks, body, deliveryHeaders({ ...delivery, body }));
        },
      },
      {
        name: "to another instance (/hooks/gitlab), signed right",
        send: (index) => {
          const delivery = completed(index);
          return post(new URL("/hooks/gitlab", server.url).href, delivery.body, deliveryHeaders(delivery));
        },
      },
    ];
    await new Promise((resolve) => setTimeout(resolve, 50));
    const heapBefore = settledHeapMb();
    const rows: Array<Array<string | number>> = [];
    const started = performance.now();
    let accepted = 0;
    for (const kind of kinds) {
      const statuses = new Map<number, number>();
      for (let index = 0; index < perKind && performance.now() - started < maxMs; index += 8) {
        const batch = Array.from({ length: Math.min(8, perKind - index) }, (_, offset) => kind.send(index + offset));
        for (const status of await Promise.all(batch)) statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
      const twoHundreds = [...statuses].filter(([status]) => status < 300).reduce((sum, [, count]) => sum + count, 0);
      accepted += twoHundreds;
      rows.push([
        kind.name,
        [...statuses.values()].reduce((sum, count) => sum + count, 0),
        [...statuses].map(([status, count]) => `${status} × ${count}`).join(", "),
        twoHundreds,
      ]);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    const upstreamCalls = server.github.counts.all - requestsBefore;
    const pushed = stream.messages.length - messagesBefore;
    const heapAfter = settledHeapMb();
    const taskAfter = await rawResult(server.url, "tasks/get", { taskId });
    const unchanged =
      taskAfter["status"] === taskBefore["status"] && taskAfter["statusMessage"] === taskBefore["statusMessage"];
    await stream.close();
    console.log(markdownTable(["forgery", "sent", "answers", "2xx (taken)"], rows));
    console.log("");
    console.log(
      markdownTable(
        [
          "deliveries taken",
          "GitHub requests caused",
          "notifications pushed",
          "task unchanged",
          "heap before MB",
          "heap after MB",
          "heap change MB",
        ],
        [
          [
            accepted,
            upstreamCalls,
            pushed,
            unchanged ? "yes" : "no",
            formatNumber(heapBefore, 1),
            formatNumber(heapAfter, 1),
            formatNumber(heapAfter - heapBefore, 2),
          ],
        ],
      ),
    );
    console.log("\nHeap: this process (server, fake GitHub and senders), after two full collections.");
  } finally {
    await server.close();
  }
}

function settledHeapMb(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1024 ** 2;
}

export async function runEvents(): Promise<void> {
  const parts: Array<[string, () => Promise<void>]> = [
    ["status lag", () => statusLag(200, 20_000)],
    ["push", () => pushLag(10, 100, 10_000)],
    ["one run", oneRunTenMinutes],
    ["forged deliveries", () => forgedDeliveries(200, 15_000)],
  ];
  for (const [name, part] of parts) {
    const started = performance.now();
    await part();
    console.error(`events: ${name} took ${formatNumber((performance.now() - started) / 1000, 1)} s`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(describeMachine());
  await runEvents();
}
