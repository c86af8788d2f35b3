import { createHash, randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { isTerminalStatus, type JobSnapshot } from "@jobtasks/core";
import { RedisLink, unavailable, type RedisLinkOptions } from "./redis-link.js";
import {
  noSharedState,
  type AnswerClaims,
  type DeliveryDedupe,
  type EventFanOut,
  type FannedOutEvent,
  type SharedRead,
  type SharedReadAnswer,
  type SharedSnapshot,
  type SharedSnapshots,
  type SharedState,
} from "./shared-state.js";

export interface RedisSharedStateOptions extends RedisLinkOptions {
  /**
   * How long a shared snapshot of a running job is kept (the reader decides whether it is fresh). Default 6 h:
   * it must outlast the longest events window a reader answers from it (eventSnapshotCacheMs, stretched by
   * an adapter's request budget: 48-72 min for 1,000 GitHub runs on one token), or every replica reads the
   * job again once it expires; finished jobs move to `finished:` and free it.
   */
  recentSnapshotMs?: number;
  /** How long a finished job's snapshot is kept. Default 1 h. */
  finishedSnapshotMs?: number;
  /** The expiry of a job's read lock, renewed while its holder reads: a replica that died frees it this soon. Default 2 s. */
  readLockMs?: number;
  /** The longest a replica waits for another one's read before it reads for itself. Default 30 s. */
  readWaitMs?: number;
}

/**
 * Shared state in Redis. Keys (all under `jobtasks:<prefix>:`, each with an expiry):
 * - `snapshot:<job>` a running job's last snapshot and when it was read; `finished:<job>` a finished one;
 * - `read-lock:<job>` the replica reading the job now (a random token);
 * - `hold:<instance>` until when the instance's upstream asked to wait, with the snapshot that said so;
 * - `answer:<job>:<question>` "delivering" while an answer goes upstream, then "settled";
 * - `delivery:<delivery>` a webhook delivery already taken.
 * `<job>`, `<question>` and `<delivery>` are digests: no repository name, ARN or account id is a key. Values
 * are snapshots as tasks/get answers them, never a principal, a token or a credential. Events travel on
 * the channel `jobtasks:<prefix>:events`.
 */
export async function connectRedisSharedState(options: RedisSharedStateOptions): Promise<SharedState> {
  const link = await RedisLink.connect(options);
  const snapshots = new RedisSnapshots(link, options);
  return {
    snapshots,
    answers: redisAnswerClaims(link),
    deliveries: redisDeliveryDedupe(link),
    events: redisEventFanOut(link),
    close: () => link.close(),
  };
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("base64url").slice(0, 24);
}

/** Renew a lock only while it is still ours; release it only then. */
const renewLockScript = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) else return 0 end`;
const releaseLockScript = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`;

class RedisSnapshots implements SharedSnapshots {
  readonly #link: RedisLink;
  readonly #recentMs: number;
  readonly #finishedMs: number;
  readonly #lockMs: number;
  readonly #waitMs: number;

  constructor(link: RedisLink, options: RedisSharedStateOptions) {
    this.#link = link;
    this.#recentMs = options.recentSnapshotMs ?? 6 * 60 * 60_000;
    this.#finishedMs = options.finishedSnapshotMs ?? 60 * 60_000;
    this.#lockMs = options.readLockMs ?? 2000;
    this.#waitMs = options.readWaitMs ?? 30_000;
  }

  get active(): boolean {
    return this.#link.active;
  }

  async readThrough(read: SharedRead): Promise<SharedReadAnswer> {
    const job = digest(read.key);
    const keys = {
      recent: this.#link.key("snapshot", job),
      finished: this.#link.key("finished", job),
      lock: this.#link.key("read-lock", job),
      hold: this.#link.key("hold", encodeURIComponent(read.instance)),
    };
    const token = randomUUID();
    const waitUntil = Date.now() + this.#waitMs;
    for (;;) {
      const looked = await this.#link.run((client) => client.mGet([keys.finished, keys.recent, keys.hold, keys.lock]));
      // Redis late or away: what this replica knows, as without Redis (its own cache, else the upstream).
      if (looked === unavailable)
        return { kind: "read", snapshot: read.fromLocalCache() ?? (await read.readUpstream()) };
      const [finishedText, recentText, holdText, lock] = looked.map((value) => value ?? undefined);
      const finished = parse<SharedSnapshot>(finishedText);
      if (finished) return { kind: "shared", ...finished, terminal: true };
      const shared = parse<SharedSnapshot>(recentText);
      if (shared && read.isFresh(shared.readAt)) return { kind: "shared", ...shared, terminal: false };
      const held = parse<{ until: number; snapshot: JobSnapshot }>(holdText);
      if (held) {
        const forMs = held.until - Date.now();
        if (forMs > 0) return { kind: "held", forMs, last: shared?.snapshot ?? held.snapshot };
      }
      // Waited long enough for a replica that holds the lock but never answers: read without it.
      if (Date.now() >= waitUntil) return this.#readHoldingLock(read, keys, token, false);
      if (lock === undefined) {
        const taken = await this.#link.run((client) => client.set(keys.lock, token, { NX: true, PX: this.#lockMs }));
        if (taken === unavailable || taken === "OK") return this.#readHoldingLock(read, keys, token, taken === "OK");
      }
      // Another replica reads the job: its snapshot appears shortly, or its lock expires (it died).
      await sleep(15);
    }
  }

  async #readHoldingLock(
    read: SharedRead,
    keys: { finished: string; lock: string },
    token: string,
    locked: boolean,
  ): Promise<SharedReadAnswer> {
    const renew = locked
      ? setInterval(
          () =>
            this.#link.send((client) =>
              client.eval(renewLockScript, { keys: [keys.lock], arguments: [token, String(this.#lockMs)] }),
            ),
          Math.max(100, Math.floor(this.#lockMs / 3)),
        )
      : undefined;
    try {
      const snapshot = await read.readUpstream();
      if (isTerminalStatus(snapshot.status)) return { kind: "read", snapshot };
      // Never backwards: a replica that saw the job finish while this read was under way has the last word.
      const finishedText = await this.#link.run((client) => client.get(keys.finished));
      const finished = finishedText === unavailable ? undefined : parse<SharedSnapshot>(finishedText ?? undefined);
      if (finished) return { kind: "shared", ...finished, terminal: true };
      return { kind: "read", snapshot };
    } finally {
      clearInterval(renew);
      if (locked)
        this.#link.send((client) => client.eval(releaseLockScript, { keys: [keys.lock], arguments: [token] }));
    }
  }

  store(key: string, value: SharedSnapshot): void {
    const job = digest(key);
    const text = JSON.stringify(value);
    if (isTerminalStatus(value.snapshot.status)) {
      this.#link.send((client) =>
        client
          .multi()
          .set(this.#link.key("finished", job), text, { PX: this.#finishedMs })
          .del(this.#link.key("snapshot", job))
          .exec(),
      );
    } else {
      this.#link.send((client) => client.set(this.#link.key("snapshot", job), text, { PX: this.#recentMs }));
    }
  }

  drop(key: string): void {
    this.#link.send((client) => client.del(this.#link.key("snapshot", digest(key))));
  }

  hold(instance: string, forMs: number, snapshot: JobSnapshot): void {
    const ms = Math.ceil(forMs);
    if (ms <= 0) return;
    const until = Date.now() + ms;
    this.#link.send((client) =>
      client.set(this.#link.key("hold", encodeURIComponent(instance)), JSON.stringify({ until, snapshot }), { PX: ms }),
    );
  }
}

/**
 * A value as this module wrote it, or undefined: a value that does not read (another release's shape,
 * something else under the prefix) is as good as absent, never a failed request.
 */
function parse<T extends SharedSnapshot | { until: number; snapshot: JobSnapshot }>(
  text: string | undefined,
): T | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<T> & Record<string, unknown>;
    const stamp = "readAt" in value ? value["readAt"] : value["until"];
    const snapshot = value["snapshot"] as { status?: unknown } | undefined;
    return typeof stamp === "number" && typeof snapshot?.status === "string" ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}

/** Claims guard what must happen once: tried even while reads go without Redis, with a longer bound. */
const guard = { guard: true } as const;

/** A question is being answered: long enough for one delivery, short enough that a replica that died frees it. */
const deliveringMs = 60_000;

function redisAnswerClaims(link: RedisLink): AnswerClaims {
  const keyOf = (job: string, question: string) => link.key("answer", digest(job), digest(question));
  return {
    claim: async (job, questions) => {
      if (questions.length === 0) return [];
      const claimed = await link.run((client) => {
        const batch = client.multi();
        for (const question of questions) batch.set(keyOf(job, question), "delivering", { NX: true, PX: deliveringMs });
        return batch.exec();
      }, guard);
      // Without Redis, this replica's own ledger is all there is: it answers as one process would.
      if (claimed === unavailable) return noSharedState.answers.claim(job, questions);
      return questions.filter((_question, index) => String(claimed[index]) === "OK");
    },
    settle: (job, questions, rememberMs) => {
      if (questions.length === 0) return;
      link.send((client) => {
        const batch = client.multi();
        for (const question of questions) batch.set(keyOf(job, question), "settled", { PX: rememberMs });
        return batch.exec();
      }, guard);
    },
    release: (job, questions) => {
      if (questions.length === 0) return;
      link.send((client) => client.del(questions.map((question) => keyOf(job, question))), guard);
    },
    settled: async (job, questions) => {
      if (questions.length === 0) return new Set();
      const values = await link.run((client) => client.mGet(questions.map((question) => keyOf(job, question))));
      if (values === unavailable) return new Set();
      return new Set(questions.filter((_question, index) => values[index] === "settled"));
    },
  };
}

function redisDeliveryDedupe(link: RedisLink): DeliveryDedupe {
  const keyOf = (delivery: string) => link.key("delivery", digest(delivery));
  return {
    firstSighting: async (delivery, rememberMs) => {
      const taken = await link.run((client) => client.set(keyOf(delivery), "1", { NX: true, PX: rememberMs }), guard);
      return taken === unavailable || taken === "OK";
    },
    forget: (delivery) => link.send((client) => client.del(keyOf(delivery))),
  };
}

interface EventMessage extends FannedOutEvent {
  from: string;
}

function redisEventFanOut(link: RedisLink): EventFanOut {
  return {
    publish: (event) =>
      link.publish("events", JSON.stringify({ ...event, from: link.replicaId } satisfies EventMessage)),
    subscribe: (listener) =>
      link.subscribe("events", (text) => {
        let message: EventMessage;
        try {
          message = JSON.parse(text) as EventMessage;
        } catch {
          return;
        }
        if (message.from === link.replicaId || typeof message.instance !== "string" || !Array.isArray(message.jobs))
          return;
        const { from: _from, ...event } = message;
        listener(event);
      }),
  };
}
