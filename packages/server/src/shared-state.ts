import type { JobSnapshot } from "@jobtasks/core";

/**
 * What replicas may share so that N of them read the upstream as one (see redis-shared-state.ts). Each
 * concern is its own small interface; without shared state (one process, or Redis unreachable) every one
 * of them answers "nothing shared" and the process's own caches, ledger and holds decide, as they always
 * did. Nothing here is a task: every value is something any replica could read again from the upstream,
 * and every one expires.
 */
export interface SharedState {
  readonly snapshots: SharedSnapshots;
  readonly answers: AnswerClaims;
  readonly deliveries: DeliveryDedupe;
  readonly events: EventFanOut;
  close(): Promise<void>;
}

/** A snapshot as shared: what tasks/get would answer, and when it was read (milliseconds since the epoch). */
export interface SharedSnapshot {
  snapshot: JobSnapshot;
  readAt: number;
}

/** One status read offered to the shared cache (see SharedSnapshots.readThrough). */
export interface SharedRead {
  /** The snapshot key (job-identity.ts), which the shared cache digests before it names anything with it. */
  key: string;
  /** The adapter instance: its upstream holds (a Retry-After) apply to every job of it. */
  instance: string;
  /** Whether a shared snapshot read at `readAt` may answer this read (the reader's own freshness rule). */
  isFresh(readAt: number): boolean;
  /** Read the upstream; the reader stores (and so shares) what it wants kept. */
  readUpstream(): Promise<JobSnapshot>;
  /** This replica's own fresh snapshot, if it has one: the answer when Redis does not answer in time. */
  fromLocalCache(): JobSnapshot | undefined;
}

export type SharedReadAnswer =
  /** Answered without this replica asking the upstream: a fresh or finished snapshot another replica read. */
  | { kind: "shared"; snapshot: JobSnapshot; readAt: number; terminal: boolean }
  /** This replica asked the upstream (it held the job's read lock, or the shared cache was unavailable). */
  | { kind: "read"; snapshot: JobSnapshot }
  /** The instance is held (a Retry-After on some replica): no request before `until`. */
  | { kind: "held"; forMs: number; last: JobSnapshot | undefined };

export interface SharedSnapshots {
  /**
   * Whether the shared cache answers right now. While it does, a replica's own short-lived cache does not
   * answer polls: every replica then sees one history of the job, so none answers `working` after another
   * answered `completed`. While it does not (Redis down or slow), the replica's own cache answers again.
   */
  readonly active: boolean;
  /**
   * A read through the shared cache: a finished or fresh shared snapshot answers; else the replica that
   * takes the job's read lock reads the upstream while the others wait (bounded) for its snapshot, and read
   * themselves when the lock's holder died (the lock expires within seconds).
   */
  readThrough(read: SharedRead): Promise<SharedReadAnswer>;
  /** Share a snapshot this replica now answers with (read, from an event, or from doStart). */
  store(key: string, value: SharedSnapshot): void;
  /** Forget the shared snapshot of a job that changed (an event without a snapshot, an answer, a cancel). */
  drop(key: string): void;
  /** Hold every replica's reads of the instance for `forMs` (a Retry-After, an exhausted rate budget). */
  hold(instance: string, forMs: number, snapshot: JobSnapshot): void;
}

/**
 * "An answer is sent once", across replicas: a question's key is claimed before its answer goes upstream
 * (set-if-absent, per job and key), so of two replicas answering one question at once only one sends it.
 */
export interface AnswerClaims {
  /** Of `keys`, the ones this replica may deliver now (claimed for it); without sharing, all of them. */
  claim(job: string, keys: readonly string[]): Promise<string[]>;
  /** Delivered and settled: the keys count as answered everywhere for `rememberMs`. */
  settle(job: string, keys: readonly string[], rememberMs: number): void;
  /** Not delivered after all (the upstream refused, or left the question open): the keys may be answered again. */
  release(job: string, keys: readonly string[]): void;
  /** Of `keys`, those settled by any replica (to hide while the upstream's status catches up). */
  settled(job: string, keys: readonly string[]): Promise<ReadonlySet<string>>;
}

/** Webhook redeliveries have no second effect, whichever replica each copy reaches. */
export interface DeliveryDedupe {
  /** True the first time any replica sees this delivery within `rememberMs`; without sharing, always true. */
  firstSighting(delivery: string, rememberMs: number): Promise<boolean>;
  /** The delivery could not be read: a resend of it must take effect. */
  forget(delivery: string): void;
}

/** An upstream event about jobs, as one replica received it, for every other replica to apply. */
export interface FannedOutEvent {
  instance: string;
  jobs: ReadonlyArray<{ ref: unknown; snapshot?: JobSnapshot; updatedAt?: string }>;
}

export interface EventFanOut {
  /** Tell the other replicas (not this one: it applied the event already). */
  publish(event: FannedOutEvent): void;
  /** Hear the events other replicas received. */
  subscribe(listener: (event: FannedOutEvent) => void): void;
}

/** One process: nothing is shared, and the process's own caches and ledger decide everything. */
export const noSharedState: SharedState = {
  snapshots: {
    active: false,
    readThrough: async (read) => ({ kind: "read", snapshot: await read.readUpstream() }),
    store: () => undefined,
    drop: () => undefined,
    hold: () => undefined,
  },
  answers: {
    claim: async (_job, keys) => [...keys],
    settle: () => undefined,
    release: () => undefined,
    settled: async () => new Set(),
  },
  deliveries: { firstSighting: async () => true, forget: () => undefined },
  events: { publish: () => undefined, subscribe: () => undefined },
  close: async () => undefined,
};
