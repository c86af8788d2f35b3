import { LRUCache } from "lru-cache";
import {
  UpstreamError,
  isTerminalStatus,
  type AdapterContext,
  type AnyJobAdapter,
  type JobSnapshot,
  type JsonValue,
} from "@jobtasks/core";
import { boundedCache, untilAborted } from "@jobtasks/core/adapter-utils";
import type { Logger } from "./logger.js";
import { taskExpired } from "./protocol-error.js";
import { upstreamErrorSnapshot } from "./upstream-error-snapshot.js";
import { jobIdentity } from "./job-identity.js";
import { EventWindows } from "./event-windows.js";
import { formatDuration, retryDefaults, retryUpstream } from "./retry-upstream.js";
import { noSharedState, type SharedReadAnswer, type SharedSnapshots } from "./shared-state.js";
import { Telemetry, type SnapshotReadObserver, type SnapshotReadSource } from "./telemetry.js";

/** Defaults shared with the CLI's config schema, so they are written once. */
export const readerDefaults = {
  snapshotCacheMs: 1000,
  eventSnapshotCacheMs: 30_000,
  eventsLiveForMs: 10 * 60_000,
  slowUpstreamAnswerMs: 5000,
  upstreamRetryBudgetMs: 10 * 60_000,
  ...retryDefaults,
} as const;

export interface SnapshotReaderOptions {
  /** How long a status read may be reused for other polls of the same job. 0 disables. Default 1000. */
  snapshotCacheMs?: number;
  /**
   * How long the cached snapshot of a job of an adapter instance whose upstream events arrive is served,
   * instead of snapshotCacheMs, from its first read: its changes arrive as events, so polls cost no
   * upstream request, and a lost delivery is caught by the read after this long (longer where the
   * adapter's request budget asks for it: event-windows.ts). Default 30 s.
   */
  eventSnapshotCacheMs?: number;
  /**
   * How long after an instance's last verified delivery its events count as arriving. Past it (a webhook
   * misconfigured or broken) its jobs are polled as without events, and a warning says so. Default 10 min.
   */
  eventsLiveForMs?: number;
  /**
   * How long an upstream may stay unreachable before its tasks end failed. Until then they stay working,
   * with a message saying what is wrong. Default 10 minutes.
   */
  upstreamRetryBudgetMs?: number;
  /** Quick retries inside one read, before reporting the outage. Default 2. */
  immediateRetries?: number;
  /** Delay before the first quick retry, doubled each time. Default 250 ms. */
  immediateRetryDelayMs?: number;
  /** How long one upstream status read (retries included) may take before it counts as an outage. Default 30 s. */
  readTimeoutMs?: number;
  /**
   * How long a caller waits for an upstream status read before it is answered with the last snapshot (or
   * `working` when there is none yet) and a message that the upstream is slow. The read itself goes on, up
   * to readTimeoutMs, for every caller that asks meanwhile. Default 5 s.
   */
  slowUpstreamAnswerMs?: number;
  /** Bound on remembered jobs (each cache). Default 10,000. */
  maxEntries?: number;
  /**
   * Bound on the size of remembered finished jobs, whose results can carry log excerpts, counted in JSON
   * characters. Default 64 MiB.
   */
  maxTerminalCacheCharacters?: number;
  logger: Logger;
  now?: () => number;
  /** The snapshot cache replicas share (Redis), in front of this reader's own. Default: none (one process). */
  sharedSnapshots?: SharedSnapshots;
  /** Where the reader's retries are counted for the upstream requests' spans. */
  telemetry?: Telemetry;
}

/** A job to read: the adapter instance's name, its adapter, and the ref as the adapter's refSchema reads it. */
export interface ReadTarget {
  instance: string;
  adapter: AnyJobAdapter;
  ref: JsonValue;
}

/**
 * Reads upstream job snapshots for the task service. Everything it keeps is an optimisation that may vanish
 * at any moment: a short-lived cache, the reads in flight (so a hundred clients polling one job cost one
 * upstream call), finished jobs (terminal answers never change), and when an outage began.
 */
export class SnapshotReader {
  readonly #options: Required<Omit<SnapshotReaderOptions, "logger" | "now" | "sharedSnapshots" | "telemetry">>;
  readonly #shared: SharedSnapshots;
  readonly #telemetry: Telemetry;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #recent: LRUCache<string, { snapshot: JobSnapshot; readAt: number }>;
  readonly #terminal: LRUCache<string, JobSnapshot>;
  readonly #outageSince: LRUCache<string, number>;
  readonly #inFlight = new Map<string, Promise<JobSnapshot>>();
  /** Jobs whose upstream asked to wait (Retry-After): until then, polls are answered with what it said. */
  readonly #heldOff: LRUCache<string, { until: number; snapshot: JobSnapshot }>;
  /**
   * Jobs that have had an upstream event, by job identity: when the last one arrived (this reader's clock),
   * the newest upstream time any event about the job gave, below which an event's snapshot is out of date,
   * and the newest a change without a snapshot announced, below which a read's answer is not kept.
   */
  readonly #evented: LRUCache<string, { at: number; upstreamTime: number | undefined; announced?: number }>;
  /**
   * The snapshot keys read of each job, by its `job` key (job-identity.ts): an event names the job, and reaches
   * the cached snapshot of every run of it that tasks follow (GitLab's retries of one pipeline). A key whose entries
   * have gone since costs nothing; the set is pruned when an event walks it.
   */
  readonly #snapshotKeys: LRUCache<string, Set<string>>;
  readonly #eventWindows: EventWindows;

  constructor(options: SnapshotReaderOptions) {
    this.#options = {
      snapshotCacheMs: options.snapshotCacheMs ?? readerDefaults.snapshotCacheMs,
      eventSnapshotCacheMs: options.eventSnapshotCacheMs ?? readerDefaults.eventSnapshotCacheMs,
      eventsLiveForMs: options.eventsLiveForMs ?? readerDefaults.eventsLiveForMs,
      upstreamRetryBudgetMs: options.upstreamRetryBudgetMs ?? readerDefaults.upstreamRetryBudgetMs,
      immediateRetries: options.immediateRetries ?? retryDefaults.immediateRetries,
      immediateRetryDelayMs: options.immediateRetryDelayMs ?? retryDefaults.immediateRetryDelayMs,
      readTimeoutMs: options.readTimeoutMs ?? 30_000,
      slowUpstreamAnswerMs: options.slowUpstreamAnswerMs ?? readerDefaults.slowUpstreamAnswerMs,
      maxEntries: options.maxEntries ?? 10_000,
      maxTerminalCacheCharacters: options.maxTerminalCacheCharacters ?? 64 * 1024 * 1024,
    };
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
    this.#shared = options.sharedSnapshots ?? noSharedState.snapshots;
    this.#telemetry = options.telemetry ?? noTelemetry;
    const max = this.#options.maxEntries;
    this.#recent = boundedCache(max);
    this.#terminal = new LRUCache({
      max,
      maxSize: this.#options.maxTerminalCacheCharacters,
      // A result larger than the whole budget is simply not cached; the upstream answers it again.
      sizeCalculation: (snapshot) => Math.max(1, JSON.stringify(snapshot).length),
    });
    this.#outageSince = boundedCache(max);
    this.#heldOff = boundedCache(max);
    this.#evented = boundedCache(max);
    this.#snapshotKeys = boundedCache(max);
    this.#eventWindows = new EventWindows({
      baseWindowMs: Math.max(this.#options.eventSnapshotCacheMs, this.#options.snapshotCacheMs),
      liveForMs: this.#options.eventsLiveForMs,
      logger: this.#logger,
      now: this.#now,
    });
  }

  /** Jobs whose polls are answered without the upstream until its Retry-After ends (the holds gauge). */
  get activeHolds(): number {
    const now = this.#now();
    let count = 0;
    for (const held of this.#heldOff.values()) if (held.until > now) count += 1;
    return count;
  }

  /** How long a caller waits for the upstream before it is answered that the upstream is slow. */
  get slowUpstreamAnswerMs(): number {
    return this.#options.slowUpstreamAnswerMs;
  }

  /**
   * The snapshot of a job. `fresh` skips the short-lived cache (used before acting on a job) and waits for
   * the upstream however long it takes (up to readTimeoutMs). Otherwise the caller waits at most
   * `answerWithinMs` (never more than slowUpstreamAnswerMs) for the upstream, and a cached snapshot counts
   * only when it was read after `readSince` (a wait's next look must be newer than its last). A job the
   * upstream no longer knows rejects with `-32602 Task has expired`.
   */
  async read(target: ReadTarget, context: AdapterContext, options: ReadOptions = {}): Promise<JobSnapshot> {
    const { job, snapshot: key } = jobIdentity(target);
    const answered = options.observer?.answered ?? ignoreSource;
    const terminal = this.#terminal.get(key);
    if (terminal) return (answered("finished"), terminal);
    const held = this.#answerWhileHeldOff(key);
    if (held) return (answered("held"), held);
    const withinMs = options.fresh
      ? undefined
      : Math.max(0, Math.min(options.answerWithinMs ?? Number.POSITIVE_INFINITY, this.#options.slowUpstreamAnswerMs));
    if (!options.fresh) {
      const recent = this.#recent.get(key);
      // While replicas share a cache, it alone answers: one history of the job for all of them.
      if (recent && !this.#shared.active && this.#stillFresh(target, key, recent.readAt, options.readSince))
        return (answered("hit"), recent.snapshot);
      const pending = this.#inFlight.get(key);
      if (pending) return (answered("coalesced"), this.#answerWithin(key, pending, context.signal, withinMs));
    }
    // The upstream read is shared by every caller that asks meanwhile, so it must not die with the first
    // caller's request: it gets its own deadline, and each caller stops waiting when its own request ends.
    const shared = { ...context, signal: AbortSignal.timeout(this.#options.readTimeoutMs) };
    // When the last attempt's Retry-After ends, on this reader's clock (cleared by an attempt without one).
    let waitUntil: number | undefined;
    const noteRetryAfter = (retryAfterMs: number | undefined) => {
      waitUntil = retryAfterMs !== undefined && retryAfterMs > 0 ? this.#now() + retryAfterMs : undefined;
    };
    this.#noteSnapshotKey(job, key);
    const isFresh = (readAt: number) => !options.fresh && this.#stillFresh(target, key, readAt, options.readSince);
    // What answered, for the count: only a read that asked the upstream stays a miss; one this replica's
    // cache answered (Redis away) is a hit; one neither did, the shared cache answered.
    let answeredHere: "miss" | "hit" | undefined;
    const readUpstream = () => this.#readFromUpstream({ job, snapshot: key }, target, shared, noteRetryAfter);
    const aroundUpstream = options.observer?.aroundUpstream;
    const upstreamRead = this.#shared
      .readThrough({
        key,
        instance: target.instance,
        isFresh,
        readUpstream: () => {
          // Said when the upstream is asked, not before: another replica's read, through Redis, may answer.
          answeredHere = "miss";
          answered("miss");
          return aroundUpstream ? aroundUpstream(readUpstream) : readUpstream();
        },
        fromLocalCache: () => {
          const recent = this.#recent.get(key);
          const fresh = recent && isFresh(recent.readAt) ? recent.snapshot : undefined;
          if (fresh) answeredHere = "hit";
          return fresh;
        },
      })
      .then((answer) => {
        answered(answeredHere ?? (answer.kind === "held" ? "held" : "shared"));
        return this.#fromSharedRead(key, answer);
      })
      .then((snapshot) => this.#holdOff(key, snapshot, waitUntil, target.instance));
    const reading = upstreamRead.finally(() => {
      if (this.#inFlight.get(key) === reading) this.#inFlight.delete(key);
    });
    this.#inFlight.set(key, reading);
    return this.#answerWithin(key, reading, context.signal, withinMs);
  }

  /**
   * Whether a cached snapshot may answer. A job of an instance whose events arrive keeps it for the events
   * window, whatever look it answers: any change since would have come as an event and dropped or replaced it.
   */
  #stillFresh(target: ReadTarget, key: string, readAt: number, readSince: number | undefined): boolean {
    const age = this.#now() - readAt;
    const eventWindowMs = this.#eventWindows.windowMs(target.instance, target.adapter, key);
    if (eventWindowMs !== undefined) return age < eventWindowMs;
    return age < this.#options.snapshotCacheMs && (readSince === undefined || readAt > readSince);
  }

  /** A delivery to `instance` verified: its events arrive, and its jobs are answered from their cache. */
  noteDelivery(instance: string): void {
    this.#eventWindows.noteDelivery(instance);
  }

  /**
   * An upstream event about a job: its snapshot replaces the cached one of every run of the job that tasks
   * follow, or (without one) those are dropped and their next reads go to the upstream. Never backwards: a
   * finished run stays finished, and a snapshot older (by the upstream's updatedAt) than what is held, or
   * than a change announced before, is ignored. An upstream delivery (`delivered`, the default) also tells
   * that the instance's events arrive (see noteDelivery); a change the adapter saw itself does not.
   */
  applyEvent(
    target: ReadTarget,
    event: { snapshot?: JobSnapshot; updatedAt?: string },
    { delivered = true }: { delivered?: boolean } = {},
  ): EventEffect {
    const { job, snapshot: eventKey } = jobIdentity(target);
    if (delivered) this.#eventWindows.noteDelivery(target.instance);
    const known = this.#snapshotKeys.get(job) ?? new Set<string>();
    // A job this process never read has nothing held to compare a running state with: a late or replayed
    // delivery (a `requested` after the run finished) would be answered for the whole events window. Its
    // running snapshot is left alone (another replica that read the job shares its own); a finished one
    // stands, since a job never leaves that state.
    if (known.size === 0 && event.snapshot && !isTerminalStatus(event.snapshot.status))
      return "ignored: a running state of a job not read here";
    // The event's own ref counts too when it is the job whole (its key is every task's): with nothing read
    // yet, a finished snapshot is kept for the tasks to come. A ref whose generation the event had to make up (a
    // REST callback's createdAt) is no task's, and its snapshot would only push followed jobs out.
    const candidates = eventKey === job ? new Set([eventKey, ...known]) : known;
    const open = [...candidates].filter((key) => !this.#terminal.has(key));
    if (candidates.size > 0 && open.length === 0) return "ignored: the job had already ended";
    const upstreamTime = timeOf(event.snapshot?.updatedAt ?? event.updatedAt);
    const previous = this.#evented.get(job);
    const held = [
      previous?.upstreamTime,
      ...open.map((key) => timeOf(this.#recent.get(key)?.snapshot.updatedAt)),
    ].filter((time): time is number => time !== undefined);
    const newestHeld = held.length > 0 ? Math.max(...held) : undefined;
    // Only a snapshot can be out of date: reading again after an old "changed" costs a read, never a step back.
    if (event.snapshot && upstreamTime !== undefined && newestHeld !== undefined && upstreamTime < newestHeld)
      return "ignored: older than the status held";
    const newest = upstreamTime === undefined ? newestHeld : Math.max(upstreamTime, newestHeld ?? upstreamTime);
    // The time a change without a snapshot announced is the job's own (the one a read gives): a read that
    // answers an older state (an upstream whose API lags its webhook) must not be kept for the window.
    const announced = event.snapshot ? previous?.announced : maxOf(previous?.announced, upstreamTime);
    this.#evented.set(job, {
      at: this.#now(),
      upstreamTime: newest,
      ...(announced !== undefined ? { announced } : {}),
    });
    // What no cache holds any more is forgotten; finished runs stay, so their count stays small.
    this.#snapshotKeys.set(job, new Set([...known].filter((key) => this.#holds(key))));
    for (const key of open) {
      // A read already under way began before the change: later callers must not be given its answer.
      this.#inFlight.delete(key);
      if (event.snapshot) {
        this.#noteSnapshotKey(job, key);
        // Aged from the last upstream read, not from the event: the safety read still comes after the window,
        // so a lost delivery about one part of a job is caught even while deliveries about others keep coming.
        this.#store(key, event.snapshot, { readAt: this.#recent.get(key)?.readAt });
        const heldOff = this.#heldOff.get(key);
        if (heldOff) this.#heldOff.set(key, { until: heldOff.until, snapshot: event.snapshot });
      } else {
        this.#recent.delete(key);
        this.#shared.drop(key);
      }
    }
    return event.snapshot ? "replaced" : "dropped";
  }

  /**
   * Whether a read begun at `startedAt` is older than an event about the job: the event arrived while the
   * read was under way (its answer predates the change), or the event announced a change newer than the
   * state the read gives (an upstream whose API lags its webhook; only within eventSnapshotCacheMs of the
   * event, so an upstream whose event times are not its reads' is not read at every poll).
   */
  #predatesAnEvent(job: string, startedAt: number, snapshot: JobSnapshot): boolean {
    const evented = this.#evented.get(job);
    if (evented === undefined) return false;
    if (evented.at >= startedAt) return true;
    const readTime = timeOf(snapshot.updatedAt);
    return (
      evented.announced !== undefined &&
      readTime !== undefined &&
      readTime < evented.announced &&
      this.#now() - evented.at < this.#options.eventSnapshotCacheMs
    );
  }

  #noteSnapshotKey(job: string, key: string): void {
    const keys = this.#snapshotKeys.get(job);
    if (keys) keys.add(key);
    else this.#snapshotKeys.set(job, new Set([key]));
  }

  /** Whether any cache holds something of this snapshot key. */
  #holds(key: string): boolean {
    return (
      this.#recent.has(key) ||
      this.#terminal.has(key) ||
      this.#heldOff.has(key) ||
      this.#inFlight.has(key) ||
      this.#outageSince.has(key)
    );
  }

  /**
   * Wait for a shared read until the caller's request ends or `withinMs` passes; then answer with what is
   * known, saying the upstream is slow. That answer is not remembered: the read goes on and its snapshot is.
   */
  async #answerWithin(
    key: string,
    reading: Promise<JobSnapshot>,
    signal: AbortSignal,
    withinMs: number | undefined,
  ): Promise<JobSnapshot> {
    if (withinMs === undefined) return untilAborted(reading, signal);
    let timer: NodeJS.Timeout | undefined;
    const slow = new Promise<"slow">((resolve) => {
      timer = setTimeout(() => resolve("slow"), withinMs);
    });
    try {
      const answer = await Promise.race([untilAborted(reading, signal), slow]);
      return answer === "slow" ? this.#slowAnswer(key) : answer;
    } finally {
      clearTimeout(timer);
    }
  }

  #slowAnswer(key: string): JobSnapshot {
    const seconds = formatDuration(this.#options.slowUpstreamAnswerMs);
    const last = this.#recent.get(key)?.snapshot;
    if (!last) {
      return {
        status: "working",
        rawStatus: "unknown",
        message: `The upstream is slow to answer: no status within ${seconds} yet; the job is not known to have ended`,
      };
    }
    const slow = `the upstream is slow to answer (no new status within ${seconds}); this is the last status read`;
    return { ...last, message: last.message ? `${last.message} (${slow})` : slow.replace(/^t/, "T") };
  }

  /**
   * No upstream request before a Retry-After has elapsed: a read that ended with one (throttled, or an
   * outage with a hint) is answered to every poll until then, with the wait that is left as pollIntervalMs.
   */
  #holdOff(key: string, snapshot: JobSnapshot, until: number | undefined, instance: string): JobSnapshot {
    if (until !== undefined && until > this.#now() && !isTerminalStatus(snapshot.status)) {
      this.#heldOff.set(key, { until, snapshot });
      // Rate limits are per account: every replica holds off every job of the instance.
      this.#shared.hold(instance, until - this.#now(), snapshot);
    }
    return snapshot;
  }

  /** What a read through the shared cache answers; another replica's snapshot is kept here too (a fallback). */
  #fromSharedRead(key: string, answer: SharedReadAnswer): JobSnapshot {
    if (answer.kind === "read") return answer.snapshot;
    if (answer.kind === "held") {
      const snapshot = answer.last ?? heldWithoutSnapshot;
      this.#heldOff.set(key, { until: this.#now() + answer.forMs, snapshot });
      return { ...snapshot, pollIntervalMs: answer.forMs };
    }
    if (answer.terminal) return this.#store(key, answer.snapshot, { share: false });
    this.#recent.set(key, { snapshot: answer.snapshot, readAt: answer.readAt });
    return answer.snapshot;
  }

  #answerWhileHeldOff(key: string): JobSnapshot | undefined {
    const held = this.#heldOff.get(key);
    if (!held) return undefined;
    const leftMs = held.until - this.#now();
    if (leftMs > 0) return { ...held.snapshot, pollIntervalMs: leftMs };
    this.#heldOff.delete(key);
    return undefined;
  }

  /** Record a snapshot obtained elsewhere (the one doStart returned). */
  remember(target: ReadTarget, snapshot: JobSnapshot): JobSnapshot {
    const { job, snapshot: key } = jobIdentity(target);
    this.#noteSnapshotKey(job, key);
    return this.#store(key, snapshot);
  }

  /** Forget what is cached for a job that we just acted on, so the next read shows the effect. */
  invalidate(target: ReadTarget): void {
    const key = jobIdentity(target).snapshot;
    this.#recent.delete(key);
    this.#inFlight.delete(key);
    this.#shared.drop(key);
  }

  async #readFromUpstream(
    keys: { job: string; snapshot: string },
    target: ReadTarget,
    context: AdapterContext,
    reportRetryAfter: (retryAfterMs: number | undefined) => void,
  ): Promise<JobSnapshot> {
    // An outage began when the first read that failed began: one failed read (retries inside included) can
    // take many seconds, and both the message and the retry budget count from the start.
    const startedAt = this.#now();
    const key = keys.snapshot;
    try {
      const read = () => target.adapter.doGetStatus(target.ref, context);
      const snapshot = await retryUpstream((attempt) => this.#telemetry.forAttempt(attempt, read), context.signal, {
        ...this.#options,
        reportRetryAfter,
      });
      this.#outageSince.delete(key);
      // A running answer older than an event about the job goes to the callers that asked, and is not kept.
      if (!isTerminalStatus(snapshot.status) && this.#predatesAnEvent(keys.job, startedAt, snapshot)) return snapshot;
      return this.#store(key, snapshot);
    } catch (error) {
      const timedOut = context.signal.aborted;
      const snapshot = this.#snapshotForError(
        key,
        target,
        timedOut
          ? new UpstreamError(`the status read did not answer within ${formatDuration(this.#options.readTimeoutMs)}`, {
              cause: error,
            })
          : error,
        startedAt,
      );
      return isTerminalStatus(snapshot.status) ? this.#store(key, snapshot) : snapshot;
    }
  }

  /**
   * Remember a snapshot read upstream at `readAt` (by default now), and share it unless it came from the
   * shared cache; returns it as it will be answered from now on.
   */
  #store(key: string, snapshot: JobSnapshot, { readAt = this.#now(), share = true } = {}): JobSnapshot {
    if (isTerminalStatus(snapshot.status)) {
      // A finished task's lastUpdatedAt must not move from poll to poll: without an upstream time, the
      // moment it was first seen finished stands.
      const stamped = snapshot.updatedAt ? snapshot : { ...snapshot, updatedAt: new Date(this.#now()).toISOString() };
      this.#terminal.set(key, stamped);
      this.#recent.delete(key);
      this.#outageSince.delete(key);
      if (share) this.#shared.store(key, { snapshot: stamped, readAt });
      return stamped;
    }
    this.#recent.set(key, { snapshot, readAt });
    if (share) this.#shared.store(key, { snapshot, readAt });
    return snapshot;
  }

  #snapshotForError(key: string, target: ReadTarget, error: unknown, readStartedAt: number): JobSnapshot {
    const since = this.#outageSince.get(key) ?? readStartedAt;
    const answer = upstreamErrorSnapshot(error, {
      since,
      now: this.#now(),
      budgetMs: this.#options.upstreamRetryBudgetMs,
    });
    const { level, fields, message } = answer.log;
    this.#logger[level]({ adapter: target.instance, kind: target.adapter.kind, ...fields }, message);
    if (answer.snapshot === "expired") throw taskExpired();
    if (answer.countsAsOutage) this.#outageSince.set(key, since);
    return answer.snapshot;
  }
}

export interface ReadOptions {
  fresh?: boolean;
  answerWithinMs?: number;
  /** A cached snapshot counts only when it was read after this time (on the reader's clock). */
  readSince?: number;
  /** Hears how the read is answered, before it is, and runs its upstream part (telemetry). */
  observer?: SnapshotReadObserver;
}

function ignoreSource(_source: SnapshotReadSource): void {}

const noTelemetry = new Telemetry({ disabled: true });

/** What an event did to a job's cached snapshot, as the delivery's log line says it. */
export type EventEffect =
  | "replaced"
  | "dropped"
  | "ignored: the job had already ended"
  | "ignored: older than the status held"
  | "ignored: a running state of a job not read here";

/** A hold another replica met on a job this replica has no snapshot of. */
const heldWithoutSnapshot: JobSnapshot = {
  status: "working",
  rawStatus: "upstream_throttled",
  message: "The upstream asked to wait before it is asked again; the job is not known to have ended",
};

function maxOf(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b);
}

function timeOf(isoTime: string | undefined): number | undefined {
  if (isoTime === undefined) return undefined;
  const time = Date.parse(isoTime);
  return Number.isNaN(time) ? undefined : time;
}
