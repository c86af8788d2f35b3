import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { AnyJobAdapter } from "@jobtasks/core";
import { githubActions } from "@jobtasks/github-actions";
import { TaskService, startHttpServer, createSilentLogger, TaskIdSealer, type DetailedTask } from "@jobtasks/server";
import { rawResult } from "../test/support/raw-rpc.js";
import { openListenStream, type ListenMessage } from "../test/support/listen-stream.js";
import { benchCaller, startTask } from "./support/bench-service.js";
import {
  benchOwner,
  benchRepo,
  createCountingGithub,
  tokenRequestsPerHour,
  type CountingGithub,
} from "./support/counting-fake-github.js";
import { describeMachine, formatNumber, heading, markdownTable, percentile } from "./support/measure.js";

/**
 * Upstream events (issue 20), measured with the GitHub Actions adapter and a fake GitHub that counts
 * requests: how long a signed delivery takes to reach tasks/get and a subscriptions/listen stream, what
 * following a run costs upstream with events and without, what 1,000 runs cost one token, and what 1,000
 * forged deliveries do (nothing, it should be). Everything listens on 127.0.0.1 only; every loop is
 * bounded by a count and a time limit.
 *
 * Run: node --import tsx bench/events.ts   (after pnpm build; it enables --expose-gc itself)
 */

const token = "ghp_BenchEventsTokenNeverSentAnywhere0123";
const webhookSecret = "bench-webhook-secret-0123456789abcdef";
const instance = "github";
const repository = `${benchOwner}/${benchRepo}`;

function collectGarbage(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}
const gc = collectGarbage();

function githubAdapter(github: CountingGithub, options: { events: boolean; baseUrl?: string; now?: () => number }) {
  return githubActions(
    {
      token,
      ...(options.events ? { webhookSecret } : {}),
      // With the in-process transport nothing is ever sent to this address.
      baseUrl: options.baseUrl ?? "http://127.0.0.1:1",
      repositories: [repository],
      requestRetries: 0,
      ...(options.baseUrl === undefined ? { fetch: github.fetch } : {}),
      ...(options.now ? { now: options.now } : {}),
    },
    {},
  );
}

function createService(adapter: AnyJobAdapter, now?: () => number): TaskService {
  return new TaskService({
    immediateRetries: 0,
    adapters: [{ name: instance, adapter }],
    sealer: new TaskIdSealer({ secret: "bench-events-secret-0123456789abcdefghijkl", secretSource: "JOBTASKS_SECRET" }),
    logger: createSilentLogger(),
    ...(now ? { now } : {}),
  });
}

// --- Deliveries, as GitHub sends them -------------------------------------------------------------

const fixture = (name: string) =>
  JSON.parse(
    readFileSync(new URL(`../adapters/github-actions/src/__fixtures__/${name}`, import.meta.url), "utf8"),
  ) as Record<string, any>;
const runTemplate = fixture("webhook-workflow-run-in-progress.json");
const jobTemplate = fixture("webhook-workflow-job-waiting.json");

interface Delivery {
  event: string;
  deliveryId: string;
  body: string;
}

let nextDelivery = 1;

function workflowRunDelivery(runId: number, status: string, conclusion: string | null, updatedAt: string): Delivery {
  const payload = structuredClone(runTemplate);
  payload["action"] = status === "completed" ? "completed" : status === "queued" ? "requested" : "in_progress";
  Object.assign(payload["workflow_run"], { id: runId, status, conclusion, updated_at: updatedAt });
  return { event: "workflow_run", deliveryId: `bench-${nextDelivery++}`, body: JSON.stringify(payload) };
}

function workflowJobDelivery(runId: number, jobId: number, updatedAt: string): Delivery {
  const payload = structuredClone(jobTemplate);
  payload["action"] = "in_progress";
  Object.assign(payload["workflow_job"], { id: jobId, run_id: runId, status: "in_progress", started_at: updatedAt });
  return { event: "workflow_job", deliveryId: `bench-${nextDelivery++}`, body: JSON.stringify(payload) };
}

const sign = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

function deliveryHeaders(delivery: Delivery, signature = sign(webhookSecret, delivery.body)): Record<string, string> {
  return {
    "content-type": "application/json",
    "x-github-event": delivery.event,
    "x-github-delivery": delivery.deliveryId,
    "x-hub-signature-256": signature,
  };
}

async function post(url: string, body: string | Uint8Array, headers: Record<string, string>): Promise<number> {
  const response = await fetch(url, { method: "POST", headers, body });
  await response.arrayBuffer();
  return response.status;
}

/**
 * What POST /hooks/<instance> does with a delivery, in process (the simulated-clock parts run without the
 * HTTP server): the adapter verifies and reads it, the service applies each job's event.
 */
async function receiveInProcess(service: TaskService, adapter: AnyJobAdapter, delivery: Delivery): Promise<void> {
  const received = {
    headers: deliveryHeaders(delivery),
    body: new TextEncoder().encode(delivery.body),
    receivedAt: Date.now(),
  };
  const verification = await adapter.events!.doVerifyDelivery(received);
  if (!verification.verified) throw new Error(`the bench's own delivery did not verify: ${verification.reason}`);
  const read = await adapter.events!.doReadDelivery(received);
  for (const job of read.jobs) service.applyJobEvent(instance, job);
}

const iso = (time: number) => new Date(time).toISOString().replace(/\.\d+Z$/, "Z");

// --- 1 and 2: one process, real HTTP --------------------------------------------------------------

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
    // A step starts in each run (workflow_job): the adapter reads the attempt and its jobs again.
    for (const [index, { runId, taskId }] of [1, 2, 3].flatMap(() => [...followed.entries()])) {
      if (performance.now() - started > maxMs) break;
      const step = `Step ${kinds.running.length} of run ${index}`;
      server.github.update(runId, {
        updatedAt: iso(Date.now()),
        jobs: [{ id: runId * 10, name: "build", status: "in_progress", conclusion: null, currentStep: step }],
      });
      kinds.running.push(
        await deliverThenGet(server, taskId, workflowJobDelivery(runId, runId * 10, iso(Date.now())), (task) =>
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
          row("workflow_job in_progress, a new step (read again: attempt + jobs)", kinds.running),
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
      server.github.update(target.runId, {
        updatedAt: iso(Date.now()),
        jobs: [{ id: target.runId * 10, name: "build", status: "in_progress", conclusion: null, currentStep: step }],
      });
      const delivery = workflowJobDelivery(target.runId, target.runId * 10, iso(Date.now()));
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
      `\nTarget: p99 ≤ 250 ms. Each delivery is a workflow_job in_progress (the adapter reads the attempt and its jobs again); the streams' own re-read interval is the adapter's 10 s, so each notification here was woken by its delivery.`,
    );
  } finally {
    for (const entry of opened) await entry.close();
    await server.close();
  }
}

// --- 3 and 4: simulated clock, the fake called in process ------------------------------------------

/** A GitHub Actions adapter and service on a clock the benchmark moves, with a count of status reads. */
async function simulatedSetup(events: boolean) {
  const clock = { now: Date.UTC(2026, 10, 20, 10, 0) };
  const now = () => clock.now;
  const github = createCountingGithub(now);
  const adapter = githubAdapter(github, { events, now });
  const reads = { count: 0 };
  const doGetStatus = adapter.doGetStatus.bind(adapter);
  adapter.doGetStatus = (ref, context) => {
    reads.count += 1;
    return doGetStatus(ref, context);
  };
  const service = createService(adapter, now);
  return { clock, github, adapter, service, reads };
}

type Simulated = Awaited<ReturnType<typeof simulatedSetup>>;

function snapshotCounts(setup: Simulated) {
  return { reads: setup.reads.count, ...setup.github.counts };
}

function countsSince(setup: Simulated, before: ReturnType<typeof snapshotCounts>) {
  const after = snapshotCounts(setup);
  return {
    reads: after.reads - before.reads,
    all: after.all - before.all,
    notModified: after.notModified - before.notModified,
    charged: after.charged - before.charged,
  };
}

/** A step starts in run `runId` upstream at the current simulated time, and (with events) GitHub says so. */
async function changeStep(setup: Simulated, runId: number, step: string, events: boolean): Promise<void> {
  setup.github.update(runId, {
    status: "in_progress",
    updatedAt: iso(setup.clock.now),
    jobs: [{ id: runId * 10, name: "build", status: "in_progress", conclusion: null, currentStep: step }],
  });
  if (events)
    await receiveInProcess(setup.service, setup.adapter, workflowJobDelivery(runId, runId * 10, iso(setup.clock.now)));
}

async function oneRunTenMinutes(): Promise<void> {
  heading("Upstream requests for one followed run: 1 client polling every second for 10 simulated minutes");
  const tenMinutesMs = 10 * 60_000;
  const rows: Array<Array<string | number>> = [];
  const variants = [
    { name: "on, GitHub's workflow_run in_progress as the run starts", events: true, startEvent: true },
    { name: "on, the run followed before its first event", events: true, startEvent: false },
    { name: "off", events: false, startEvent: false },
  ];
  for (const { name, events, startEvent } of variants) {
    // Without events every poll is a read, each about 25 ms of wall time through octokit's throttling
    // queue: two simulated minutes, scaled to ten, say the same.
    const simulatedMs = events ? tenMinutesMs : 2 * 60_000;
    const scale = tenMinutesMs / simulatedMs;
    const setup = await simulatedSetup(events);
    const runId = 7_200_000_001;
    setup.github.addRun(runId, { updatedAt: iso(setup.clock.now) });
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
      changes.set(minute * 60_000 + 500, () => changeStep(setup, runId, `Step ${minute}`, events));
    changes.set(595_500, async () => {
      setup.github.update(runId, { status: "completed", conclusion: "success", updatedAt: iso(setup.clock.now) });
      if (events)
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
    const eventCount = events ? changes.size : 0;
    const budget = eventCount + tenMinutesMs / 30_000;
    const scaled = (value: number) =>
      scale === 1 ? String(value) : `${formatNumber(value * scale)} (${value} in 2 min × 5)`;
    rows.push([
      name,
      scaled(polls),
      events ? eventCount : 0,
      scaled(spent.reads),
      events
        ? `≤ ${budget} (${eventCount} events + ${tenMinutesMs / 30_000} × 30 s): ${spent.reads <= budget ? "met" : "missed"}`
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
    "\nA status read of a running run is two GitHub requests (the attempt and its jobs), of a finished one three (and the artifacts).",
  );
}

interface ThousandRunsResult {
  runs: number;
  simulatedMs: number;
  polls: number;
  changes: number;
  seen: number;
  lagsMs: number[];
  spent: ReturnType<typeof countsSince>;
  wallMs: number;
}

/**
 * `runs` runs followed at once, each by an agent polling tasks/get every `pollEveryMs` (phases spread),
 * each run starting a new step `changesPerRunHour` times an hour on average, for `simulatedMs`. Counts
 * what following costs from the moment every task has been read once, and the lag of each change: from
 * the change upstream to the first poll whose answer shows it (simulated time).
 */
async function thousandRuns(
  events: boolean,
  runs: number,
  simulatedMs: number,
  pollEveryMs: number,
  changesPerRunHour: number,
  maxWallMs: number,
): Promise<ThousandRunsResult> {
  const setup = await simulatedSetup(events);
  const firstRun = 7_300_000_001;
  const taskIds: string[] = [];
  for (let index = 0; index < runs; index += 100) {
    const batch = Array.from({ length: Math.min(100, runs - index) }, (_, offset) => firstRun + index + offset);
    for (const runId of batch)
      setup.github.addRun(runId, { status: "queued", jobs: [], updatedAt: iso(setup.clock.now) });
    taskIds.push(...(await Promise.all(batch.map((runId) => startTask(setup.service, "watch_run", { runId })))));
  }
  // Every agent reads its task once (so the adapter holds each answer's ETag, as it does in a steady state);
  // then, with events, GitHub's workflow_run requested arrives for each run: its snapshot says queued, so
  // it costs no read.
  await Promise.all(taskIds.map((taskId) => setup.service.getTask(taskId, benchCaller())));
  if (events)
    for (let index = 0; index < runs; index += 1)
      await receiveInProcess(
        setup.service,
        setup.adapter,
        workflowRunDelivery(firstRun + index, "queued", null, iso(setup.clock.now)),
      );
  const start = setup.clock.now;
  const before = snapshotCounts(setup);

  // Polls grouped in 100 ms slots, so that concurrent agents poll concurrently.
  const slotMs = 100;
  const pollsAt = new Map<number, number[]>();
  for (let agent = 0; agent < runs; agent += 1) {
    const phase = Math.floor((agent * pollEveryMs) / runs / slotMs) * slotMs;
    for (let at = phase + slotMs; at < simulatedMs; at += pollEveryMs) {
      const due = pollsAt.get(at) ?? [];
      due.push(agent);
      pollsAt.set(at, due);
    }
  }
  // Changes spread evenly over the window, over the runs in a scattered order, half-way between slots.
  const changeCount = Math.round((runs * changesPerRunHour * simulatedMs) / 3_600_000);
  const changesAt = new Map<number, number[]>();
  for (let change = 0; change < changeCount; change += 1) {
    const at = Math.floor(((change + 0.5) * simulatedMs) / changeCount / slotMs) * slotMs + slotMs / 2;
    const due = changesAt.get(at) ?? [];
    due.push((change * 7919) % runs);
    changesAt.set(at, due);
  }
  const pending = new Map<number, { step: string; at: number }>();
  const lagsMs: number[] = [];
  let polls = 0;
  let changeNumber = 0;
  const wallStarted = performance.now();
  const moments = [...new Set([...pollsAt.keys(), ...changesAt.keys()])].sort((a, b) => a - b);
  for (const at of moments) {
    if (performance.now() - wallStarted > maxWallMs) break;
    setup.clock.now = start + at;
    for (const agent of changesAt.get(at) ?? []) {
      const step = `Change ${changeNumber++}`;
      pending.set(agent, { step, at: setup.clock.now });
      await changeStep(setup, firstRun + agent, step, events);
    }
    const due = pollsAt.get(at) ?? [];
    polls += due.length;
    await Promise.all(
      due.map(async (agent) => {
        const task = (await setup.service.getTask(taskIds[agent]!, benchCaller())) as DetailedTask;
        const waiting = pending.get(agent);
        if (waiting && String(task.statusMessage).includes(waiting.step)) {
          lagsMs.push(setup.clock.now - waiting.at);
          pending.delete(agent);
        }
      }),
    );
  }
  const wallMs = performance.now() - wallStarted;
  const spent = countsSince(setup, before);
  await setup.service.close();
  return {
    runs,
    simulatedMs: setup.clock.now - start,
    polls,
    changes: changeNumber,
    seen: lagsMs.length,
    lagsMs,
    spent,
    wallMs,
  };
}

async function thousandRunsOneToken(): Promise<void> {
  const pollEveryMs = 2000;
  const changesPerRunHour = 60;
  heading(
    `1,000 runs followed at once on one token (${formatNumber(tokenRequestsPerHour)} requests an hour), agents polling every ${pollEveryMs / 1000} s, simulated clock`,
  );
  const results = [
    { name: "events on", result: await thousandRuns(true, 1000, 32_000, pollEveryMs, changesPerRunHour, 30_000) },
    // Without events every poll is a read: 100 runs stand for 1,000 (runs do not share reads), and the
    // figures per hour are scaled by 10.
    { name: "events off", result: await thousandRuns(false, 100, 12_000, pollEveryMs, changesPerRunHour, 10_000) },
  ];
  const perHourFor1000 = (value: number, result: ThousandRunsResult) =>
    (value * 3_600_000 * (1000 / result.runs)) / result.simulatedMs;
  console.log(
    markdownTable(
      [
        "",
        "runs measured",
        "simulated s",
        "tasks/get",
        "changes (a new step)",
        "seen by the agents",
        "lag p50 s",
        "lag p99 s",
        "lag max s",
        "GitHub requests",
        "of them 304",
        "charged",
        "status reads",
        "1,000 runs: requests per hour",
        "1,000 runs: charged per hour",
        "wall s",
      ],
      results.map(({ name, result }) => [
        name,
        formatNumber(result.runs),
        result.simulatedMs / 1000,
        formatNumber(result.polls),
        result.changes,
        result.seen,
        formatNumber(percentile(result.lagsMs, 50) / 1000, 1),
        formatNumber(percentile(result.lagsMs, 99) / 1000, 1),
        formatNumber(Math.max(...result.lagsMs) / 1000, 1),
        formatNumber(result.spent.all),
        formatNumber(result.spent.notModified),
        formatNumber(result.spent.charged),
        formatNumber(result.spent.reads),
        formatNumber(perHourFor1000(result.spent.all, result)),
        formatNumber(perHourFor1000(result.spent.charged, result)),
        formatNumber(result.wallMs / 1000, 1),
      ]),
    ),
  );
  console.log(
    `\nEach run starts a new step ${changesPerRunHour} times an hour (a workflow_job event each, with events on), spread evenly. Counted from the moment every task had been read once (creating the tasks cost one request each). Lag: from the change upstream to the first tasks/get that shows it, in simulated time, so it includes the wait for the agent's next poll (at most ${pollEveryMs / 1000} s). The adapter remembers 500 answers' ETags: with 1,000 runs (two URLs each) they are pushed out before they are asked again, so no read gets a 304; the 100 runs of the events-off row fit, so its 304s are more than 1,000 runs would get.`,
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
    server.github.update(runId, {
      updatedAt: iso(Date.now()),
      jobs: [{ id: runId * 10, name: "build", status: "in_progress", conclusion: null, currentStep: step }],
    });
    const captured = workflowJobDelivery(runId, runId * 10, iso(Date.now()));
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
    ["1,000 runs", thousandRunsOneToken],
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
