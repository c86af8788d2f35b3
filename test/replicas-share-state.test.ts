import { createHash } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { UpstreamError, type JobEventsV1, type JobSnapshot } from "@jobtasks/core";
import { TaskIdSealer } from "../packages/server/src/task-id.js";
import { TaskService, type CallerContext } from "../packages/server/src/task-service.js";
import type { CreateTaskResult } from "../packages/server/src/task-shape.js";
import { connectRedisSharedState } from "../packages/server/src/connect-shared-state.js";
import { noSharedState, type SharedState } from "../packages/server/src/shared-state.js";
import { jobIdentity } from "../packages/server/src/job-identity.js";
import { EventReceiver } from "../packages/server/src/event-receiver.js";
import { capturingLogger, type LogEntry } from "../packages/server/src/test-support/capturing-logger.js";
import {
  approvalRequest,
  completedSnapshot,
  createScriptedAdapter,
  inputRequiredSnapshot,
  workingSnapshot,
  type ScriptedAdapter,
  type ScriptedJobRef,
} from "./support/scripted-adapter.js";
import { redisCommand, redisKeys, startTestRedis, type TestRedis } from "./support/redis-server.js";
import { samplesOf, startTestTelemetry } from "./support/test-telemetry.js";
import type { Telemetry } from "../packages/server/src/telemetry.js";

/**
 * Three replicas (TaskServices, each with its own Redis connection, as three processes would have) in
 * front of one upstream, sharing a real redis-server that this file starts: one read per job per window,
 * one answer per question, one hold per instance, events reaching every replica, never a step backwards,
 * and Redis going away costing no request. Each test has its own key prefix.
 */

const secret = "replicas-share-state-secret-0123456789abcdef";
const principal = "alice-principal-7f3e";
const alice: CallerContext & { tasksDeclared: boolean } = {
  principal,
  signal: new AbortController().signal,
  tasksDeclared: true,
};

let redis: TestRedis;
let prefixes = 0;
const toClose: SharedState[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop();
});
afterEach(async () => {
  await Promise.all(toClose.splice(0).map((state) => state.close()));
});

interface Replicas {
  services: TaskService[];
  states: SharedState[];
  logs: LogEntry[][];
  scripted: ScriptedAdapter;
  prefix: string;
}

/** `count` replicas of one scripted adapter instance; `shared: false` gives today's separate processes. */
async function startReplicas(
  options: {
    count?: number;
    snapshotCacheMs?: number;
    shared?: boolean;
    events?: JobEventsV1<ScriptedJobRef>;
    /**
     * Default 500 ms: a loaded test machine may answer later than the 50 ms of production, which would
     * make exact counts depend on the machine; the outage test keeps the real 50 ms.
     */
    commandTimeoutMs?: number;
    /** The telemetry of each replica, by index (default: none recorded). */
    telemetry?: Array<Telemetry | undefined>;
  } = {},
): Promise<Replicas> {
  const scripted = createScriptedAdapter();
  const adapter = options.events ? { ...scripted.adapter, events: options.events } : scripted.adapter;
  const prefix = `test-${process.pid}-${++prefixes}`;
  const services: TaskService[] = [];
  const states: SharedState[] = [];
  const logs: LogEntry[][] = [];
  for (let index = 0; index < (options.count ?? 3); index++) {
    const { logger, entries } = capturingLogger();
    const state =
      options.shared === false
        ? noSharedState
        : await connectRedisSharedState({
            url: redis.url,
            keyPrefix: prefix,
            logger,
            commandTimeoutMs: options.commandTimeoutMs ?? 500,
          });
    toClose.push(state);
    states.push(state);
    logs.push(entries);
    const telemetry = options.telemetry?.[index];
    services.push(
      new TaskService({
        adapters: [{ name: "scripted", adapter }],
        sealer: new TaskIdSealer({ secret }),
        logger,
        snapshotCacheMs: options.snapshotCacheMs ?? 1000,
        immediateRetries: 0,
        sharedState: state,
        ...(telemetry ? { telemetry } : {}),
      }),
    );
  }
  return { services, states, logs, scripted, prefix };
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

async function createTask(replicas: Replicas, startAs: "working" | "input_required" = "working"): Promise<string> {
  const created = (await replicas.services[0]!.callTool("scripted_job", { startAs }, alice)) as CreateTaskResult;
  return created.taskId;
}

const warnings = (entries: LogEntry[]) => entries.filter((entry) => entry.level === 40);

describe("replicas sharing state through Redis", () => {
  it("read a job once per cache window, however the polls spread over three replicas", async () => {
    for (const shared of [true, false]) {
      const replicas = await startReplicas({ snapshotCacheMs: 2000, shared });
      const taskId = await createTask(replicas);
      // Past the window of the start's own snapshot: the next polls must read the job.
      await sleep(2100);
      const before = replicas.scripted.calls.getStatus;
      for (let round = 0; round < 5; round++)
        await Promise.all(replicas.services.map((service) => service.getTask(taskId, alice)));
      const reads = replicas.scripted.calls.getStatus - before;
      // Without sharing, each replica reads for itself.
      expect({ shared, reads }).toEqual({ shared, reads: shared ? 1 : 3 });
    }
  });

  it("count a read that another replica's snapshot answered as shared, not as a miss", async () => {
    const observed = startTestTelemetry();
    try {
      const replicas = await startReplicas({
        count: 2,
        snapshotCacheMs: 2000,
        // The test SDK's Telemetry is the built package's class, the same code this file's services run from src.
        telemetry: [undefined, observed.telemetry as unknown as Telemetry],
      });
      const taskId = await createTask(replicas);
      await sleep(2100);
      const before = replicas.scripted.calls.getStatus;
      // The first replica reads the upstream; the second is answered with that snapshot, through Redis.
      await replicas.services[0]!.getTask(taskId, alice);
      await replicas.services[1]!.getTask(taskId, alice);
      expect(replicas.scripted.calls.getStatus - before).toBe(1);
      const sources = samplesOf(await observed.prometheusText(), "jobtasks_snapshot_reads_total").map((sample) => [
        sample.labels["jobtasks_snapshot_source"],
        sample.value,
      ]);
      expect(sources).toEqual([["shared", 1]]);
    } finally {
      await observed.close();
    }
  });

  it("read for themselves when the replica holding a job's read lock died, within the lock's expiry", async () => {
    let hang = false;
    const replicas = await startReplicas({ snapshotCacheMs: 0 });
    const taskId = await createTask(replicas);
    const [a, b] = replicas.services as [TaskService, TaskService];
    const original = replicas.scripted.adapter.doGetStatus.bind(replicas.scripted.adapter);
    // The same adapter object every replica reads through: a's read never answers while `hang` is on.
    (replicas.scripted.adapter as { doGetStatus: typeof original }).doGetStatus = async (ref, context) => {
      if (hang) return new Promise<never>(() => undefined);
      return original(ref, context);
    };
    hang = true;
    void a.getTask(taskId, { ...alice, signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
    await sleep(100);
    // a dies: its connection goes, its lock is no longer renewed.
    await replicas.states[0]!.close();
    hang = false;
    const startedAt = performance.now();
    const task = await b.getTask(taskId, alice);
    const waitedMs = performance.now() - startedAt;
    expect(task.statusMessage).toBe("started job");
    expect(waitedMs).toBeGreaterThan(500);
    expect(waitedMs).toBeLessThan(3000);
  });

  it("never answer working on one replica after another answered completed", async () => {
    const replicas = await startReplicas({ snapshotCacheMs: 1000 });
    const [a, b] = replicas.services as [TaskService, TaskService];
    const taskId = await createTask(replicas);
    await sleep(1100);
    expect((await a.getTask(taskId, alice)).status).toBe("working");
    await sleep(600);
    expect((await b.getTask(taskId, alice)).status).toBe("working");
    replicas.scripted.update(replicas.scripted.onlyJob(), completedSnapshot("green"));
    await sleep(500);
    // a's window has passed, b's own would not have: b must not answer from it.
    expect((await a.getTask(taskId, alice)).status).toBe("completed");
    expect((await b.getTask(taskId, alice)).status).toBe("completed");
    expect((await replicas.services[2]!.getTask(taskId, alice)).status).toBe("completed");
  });

  it("send an answer once, when many tasks/update race on three replicas", async () => {
    for (const shared of [true, false]) {
      const replicas = await startReplicas({ shared });
      const taskId = await createTask(replicas, "input_required");
      replicas.scripted.update(replicas.scripted.onlyJob(), inputRequiredSnapshot({ approve: approvalRequest() }));
      await Promise.all(
        Array.from({ length: 30 }, (_, index) =>
          replicas.services[index % 3]!.updateTask(
            taskId,
            { approve: { action: "accept", content: { approve: true } } },
            alice,
          ),
        ),
      );
      expect({ shared, answers: replicas.scripted.calls.respond }).toEqual({ shared, answers: shared ? 1 : 3 });
      if (shared) {
        // The upstream still lists the question; no replica offers it again.
        for (const service of replicas.services) expect((await service.getTask(taskId, alice)).status).toBe("working");
      }
    }
  });

  it("hold every replica and every job of the instance after one replica's Retry-After", async () => {
    const replicas = await startReplicas({ snapshotCacheMs: 0 });
    const first = await createTask(replicas);
    const second = await createTask(replicas);
    const [firstJob] = [...replicas.scripted.jobs.values()];
    replicas.scripted.failReads(
      firstJob!,
      new UpstreamError("rate limited", { httpStatus: 429, retryAfterMs: 10_000, isThrottled: true }),
    );
    const throttled = await replicas.services[0]!.getTask(first, alice);
    expect(throttled.statusMessage).toMatch(/asked to wait/);
    replicas.scripted.failReads(firstJob!, undefined);
    await sleep(20);
    const before = replicas.scripted.calls.getStatus;
    for (const service of replicas.services.slice(1))
      for (const taskId of [first, second]) {
        const task = await service.getTask(taskId, alice);
        expect(task.status).toBe("working");
        expect(task.pollIntervalMs).toBeGreaterThan(9_000);
      }
    expect(replicas.scripted.calls.getStatus - before).toBe(0);
  });

  it("bring an event received by one replica to the caches and waits of the others, once per delivery", async () => {
    const deliveries: Array<{ ref: ScriptedJobRef; snapshot: JobSnapshot }> = [];
    const events: JobEventsV1<ScriptedJobRef> = {
      doVerifyDelivery: async (delivery) => ({ verified: true, deliveryId: delivery.headers["x-delivery"]! }),
      doReadDelivery: async () => ({ event: "job", jobs: [deliveries.at(-1)!] }),
    };
    const replicas = await startReplicas({ snapshotCacheMs: 60_000, events });
    const taskId = await createTask(replicas);
    const [a, b, c] = replicas.services as [TaskService, TaskService, TaskService];
    await c.getTask(taskId, alice);
    const waiting = new AbortController();
    const woken = c.whenChanged(taskId, principal, waiting.signal).then(() => performance.now());
    const reads = replicas.scripted.calls.getStatus;
    deliveries.push({
      ref: { jobId: replicas.scripted.onlyJob().jobId },
      snapshot: { ...workingSnapshot("step 2/3"), updatedAt: new Date().toISOString() },
    });
    const sentAt = performance.now();
    const receive = (service: TaskService) =>
      new EventReceiver({ service, logger: capturingLogger().logger }).receive("scripted", {
        headers: { "x-delivery": "delivery-1" },
        body: new Uint8Array(),
      });
    expect((await receive(a)).httpStatus).toBe(202);
    const wokenAt = await Promise.race([woken, sleep(2000).then(() => Number.POSITIVE_INFINITY)]);
    expect(wokenAt - sentAt).toBeLessThan(500);
    expect((await c.getTask(taskId, alice)).statusMessage).toBe("step 2/3");
    expect((await b.getTask(taskId, alice)).statusMessage).toBe("step 2/3");
    expect(replicas.scripted.calls.getStatus).toBe(reads);
    // The same delivery again, at another replica: no second effect.
    expect((await receive(b)).body).toEqual({ ok: true, duplicate: true });
  });

  it("keep answering while Redis is down or slow, warn once per replica, and share again once it is back", async () => {
    const delivery: { next?: { ref: ScriptedJobRef; snapshot: JobSnapshot } } = {};
    const events: JobEventsV1<ScriptedJobRef> = {
      doVerifyDelivery: async () => ({ verified: true }),
      doReadDelivery: async () => ({ event: "job", jobs: [delivery.next!] }),
    };
    const replicas = await startReplicas({ snapshotCacheMs: 400, events, commandTimeoutMs: 50 });
    const taskId = await createTask(replicas);
    await sleep(500);
    // Slow: Redis holds every command for 1.5 s, far longer than the 50 ms the replicas wait; a few late
    // answers in a row and a replica stops asking (one warning), each request answered meanwhile.
    const slow = redisCommand(redis, "DEBUG", "SLEEP", "1.5");
    await sleep(20);
    const startedAt = performance.now();
    await Promise.all(
      replicas.services.map(async (service) => {
        for (let poll = 0; poll < 5; poll++) expect((await service.getTask(taskId, alice)).status).toBe("working");
      }),
    );
    expect(performance.now() - startedAt).toBeLessThan(1400);
    await slow;
    for (const entries of replicas.logs) expect(warnings(entries)).toHaveLength(1);
    // Down: every request is still answered, from the upstream.
    await redis.stop();
    for (let round = 0; round < 5; round++)
      for (const service of replicas.services) expect((await service.getTask(taskId, alice)).status).toBe("working");
    await redis.start();
    const restartedAt = performance.now();
    // Back: within 5 s one replica's read answers the others' polls again.
    let sharedAgain = false;
    while (!sharedAgain && performance.now() - restartedAt < 5000) {
      await sleep(450);
      const before = replicas.scripted.calls.getStatus;
      for (const service of replicas.services) await service.getTask(taskId, alice);
      sharedAgain = replicas.scripted.calls.getStatus - before === 1;
    }
    expect(sharedAgain).toBe(true);
    // Events too: the replicas subscribed again after the restart.
    const waiting = new AbortController();
    const woken = replicas.services[2]!.whenChanged(taskId, principal, waiting.signal).then(() => true);
    delivery.next = {
      ref: { jobId: replicas.scripted.onlyJob().jobId },
      snapshot: workingSnapshot("after the restart"),
    };
    await new EventReceiver({ service: replicas.services[0]!, logger: capturingLogger().logger }).receive("scripted", {
      headers: {},
      body: new Uint8Array(),
    });
    expect(await Promise.race([woken, sleep(2000).then(() => false)])).toBe(true);
    waiting.abort();
    for (const entries of replicas.logs) expect(warnings(entries)).toHaveLength(1);
  }, 30_000);

  it("take a value that does not read as absent, never as a failed request", async () => {
    const replicas = await startReplicas({ snapshotCacheMs: 60_000 });
    const taskId = await createTask(replicas);
    const job = createHash("sha256")
      .update(
        jobIdentity({
          instance: "scripted",
          adapter: replicas.scripted.adapter,
          ref: { jobId: replicas.scripted.onlyJob().jobId },
        }).snapshot,
      )
      .digest("base64url")
      .slice(0, 24);
    for (const kind of ["snapshot", "finished", "hold"])
      await redisCommand(
        redis,
        "SET",
        `jobtasks:${replicas.prefix}:${kind}:${kind === "hold" ? "scripted" : job}`,
        "{not json",
        "PX",
        "60000",
      );
    for (const service of replicas.services) expect((await service.getTask(taskId, alice)).status).toBe("working");
  });

  it("give every key an expiry and put no principal or secret in keys or values", async () => {
    const replicas = await startReplicas();
    const taskId = await createTask(replicas, "input_required");
    replicas.scripted.update(replicas.scripted.onlyJob(), inputRequiredSnapshot({ approve: approvalRequest() }));
    await replicas.services[1]!.updateTask(
      taskId,
      { approve: { action: "accept", content: { approve: true } } },
      alice,
    );
    replicas.scripted.update(replicas.scripted.onlyJob(), completedSnapshot("done"));
    await sleep(1100);
    await replicas.services[2]!.getTask(taskId, alice);
    await sleep(50);
    const keys = redisKeys(redis, `jobtasks:${replicas.prefix}:*`);
    expect(keys.map((entry) => entry.key.split(":")[2]).sort()).toEqual(expect.arrayContaining(["answer", "finished"]));
    for (const entry of keys) {
      expect(entry.ttlMs, entry.key).toBeGreaterThan(0);
      for (const text of [entry.key, entry.value]) {
        expect(text).not.toContain(principal);
        expect(text).not.toContain(secret);
        expect(text).not.toContain(taskId);
      }
    }
  });
});
