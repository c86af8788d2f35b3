import type { AdapterLoggerV1 } from "@jobtasks/core";
import { sleep } from "@jobtasks/core/adapter-utils";
import type { V1Job } from "@kubernetes/client-node";
import { httpStatusOf } from "./kubernetes-errors.js";
import type { KubernetesApi, WatchEvent } from "./kubernetes-api.js";

/**
 * One list+watch of one namespace's Jobs: every status read of a Job there is answered from what it holds,
 * so 300 followed Jobs cost one watch connection, not 300 polls. It lists once (keeping the list's
 * resourceVersion), watches from there with bookmarks, resumes a watch that ended from the last
 * resourceVersion it saw, lists again when the API answers 410 Gone (the version is too old), and backs off
 * (doubling, with jitter) while the API fails. While it is not in sync (before the first list, after a
 * failure until a watch runs again), `synced` is false and readers ask the API directly.
 * A Job's copy only ever moves forward (by resourceVersion), whichever of the watch, a re-list or a direct
 * read brought it, so no task is ever shown an older state than one it was shown before.
 */

export interface WatchSettings {
  backoffMs: number;
  maxBackoffMs: number;
  timeoutSeconds: number;
}

export interface Tombstone {
  /** The Job's last state seen before it was deleted; absent when it was only found missing. */
  job?: V1Job;
  deletedAt: number;
}

/** Counts for benchmarks and tests: what the watch cost the API. */
export interface WatchStatistics {
  lists: number;
  watchRequests: number;
  relistsAfterGone: number;
  events: number;
  bookmarks: number;
  failures: number;
}

const maxTombstones = 10_000;

/** Job names of a namespace that reads asked for, whose changes are reported; the oldest asked is dropped first. */
const maxFollowedNames = 10_000;

/** Told of a change to a Job that reads have asked for, from the list or the watch (not from a direct read). */
export type JobChangeListener = (namespace: string, job: V1Job) => void;

export class NamespaceJobWatch {
  readonly namespace: string;
  readonly statistics: WatchStatistics = {
    lists: 0,
    watchRequests: 0,
    relistsAfterGone: 0,
    events: 0,
    bookmarks: 0,
    failures: 0,
  };
  readonly #api: KubernetesApi;
  readonly #settings: WatchSettings;
  readonly #logger: AdapterLoggerV1 | undefined;
  readonly #jobs = new Map<string, V1Job>();
  readonly #tombstones = new Map<string, Tombstone>();
  readonly #syncWaiters = new Set<() => void>();
  readonly #followed = new Set<string>();
  readonly #onChange: JobChangeListener | undefined;
  #resourceVersion = "";
  #synced = false;
  #stopped = false;
  #current: { stop(): void } | undefined;
  readonly #stopping = new AbortController();
  #running: Promise<void> | undefined;
  /** Settles after the first list, whether it succeeded or not: a first read waits for it, later ones never. */
  #firstAttempt!: () => void;
  readonly #firstAttemptDone = new Promise<void>((resolve) => (this.#firstAttempt = resolve));

  constructor(
    api: KubernetesApi,
    namespace: string,
    settings: WatchSettings,
    logger?: AdapterLoggerV1,
    onChange?: JobChangeListener,
  ) {
    this.#api = api;
    this.#onChange = onChange;
    this.namespace = namespace;
    this.#settings = settings;
    this.#logger = logger;
  }

  get synced(): boolean {
    return this.#synced;
  }

  start(): void {
    this.#running ??= this.#run();
  }

  /**
   * Resolves once the first list and watch are up, or the first attempt failed, or after `withinMs`,
   * whichever comes first: only a namespace's first reads wait, never the reads of an outage.
   */
  async whenSynced(withinMs: number, signal: AbortSignal): Promise<void> {
    if (this.#synced) return;
    let wake!: () => void;
    const synced = new Promise<void>((resolve) => (wake = resolve));
    this.#syncWaiters.add(wake);
    const timer = new AbortController();
    try {
      await Promise.race([synced, this.#firstAttemptDone, sleep(withinMs, AbortSignal.any([signal, timer.signal]))]);
    } finally {
      timer.abort();
      this.#syncWaiters.delete(wake);
    }
  }

  /** The Job of this name the watch holds, if any. Its changes are reported from now on (see onChange). */
  job(name: string): V1Job | undefined {
    this.#follow(name);
    return this.#jobs.get(name);
  }

  tombstone(uid: string): Tombstone | undefined {
    return this.#tombstones.get(uid);
  }

  /** A Job known to be gone (a direct read found none): later reads need not ask again. */
  markGone(uid: string): void {
    if (!this.#tombstones.has(uid)) this.#remember(uid, { deletedAt: Date.now() });
  }

  /** A Job read or created directly: kept unless the watch holds the same or a newer state of it. */
  offer(job: V1Job): void {
    this.#apply(job);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopping.abort();
    this.#current?.stop();
    await this.#running?.catch(() => undefined);
  }

  async #run(): Promise<void> {
    let failures = 0;
    while (!this.#stopped) {
      try {
        if (this.#resourceVersion === "") await this.#relist();
        const ended = await this.#watchOnce();
        failures = 0;
        if (ended === "gone") {
          this.#markUnsynced();
          this.#resourceVersion = "";
          this.statistics.relistsAfterGone += 1;
        }
      } catch (error) {
        this.#firstAttempt();
        if (this.#stopped) return;
        this.#markUnsynced();
        if (httpStatusOf(error) === 410 || (error as { httpStatus?: number }).httpStatus === 410) {
          this.#resourceVersion = "";
          this.statistics.relistsAfterGone += 1;
          continue;
        }
        failures += 1;
        this.statistics.failures += 1;
        const delay = Math.min(this.#settings.maxBackoffMs, this.#settings.backoffMs * 2 ** (failures - 1));
        const jittered = Math.round(delay * (0.5 + Math.random() / 2));
        this.#logger?.warn(
          { namespace: this.namespace, failures, retryInMs: jittered, error: (error as Error).message },
          "the watch of Kubernetes Jobs failed; reads ask the API directly until it runs again",
        );
        await sleep(jittered, this.#stopping.signal).catch(() => undefined);
      }
    }
  }

  async #relist(): Promise<void> {
    const list = await this.#api.listJobs(this.namespace, this.#stopping.signal);
    this.statistics.lists += 1;
    const listed = new Set<string>();
    for (const job of list.items) {
      listed.add(job.metadata?.name ?? "");
      if (this.#apply(job)) this.#report(job);
    }
    // Deleted while nobody watched: their last state is what the watch held.
    for (const [name, job] of this.#jobs)
      if (!listed.has(name)) {
        this.#jobs.delete(name);
        this.#bury(job);
        this.#report(job);
      }
    this.#resourceVersion = list.resourceVersion;
  }

  /** One watch request, until it ends: "ended" to resume from the last version, "gone" to list again. */
  async #watchOnce(): Promise<"ended" | "gone"> {
    let gone = false;
    let finish!: (error: unknown) => void;
    const finished = new Promise<unknown>((resolve) => (finish = resolve));
    this.statistics.watchRequests += 1;
    this.#current = await this.#api.watchJobs(
      this.namespace,
      this.#resourceVersion,
      this.#settings.timeoutSeconds,
      (event) => {
        if (this.#onEvent(event) === "gone") gone = true;
      },
      (error) => finish(error),
    );
    // Stopped while connecting: nobody else will close this one.
    if (this.#stopped) this.#current.stop();
    else this.#markSynced();
    const error = await finished;
    this.#current = undefined;
    if (gone) return "gone";
    if (error && !this.#stopped) throw error;
    return "ended";
  }

  #onEvent(event: WatchEvent): "gone" | undefined {
    const object = event.object;
    if (event.type === "ERROR") {
      if (object?.code === 410) return "gone";
      this.#logger?.warn({ namespace: this.namespace, code: object?.code }, "the Jobs watch sent an error event");
      return undefined;
    }
    const version = object?.metadata?.resourceVersion;
    if (event.type === "BOOKMARK") {
      this.statistics.bookmarks += 1;
    } else if (event.type === "ADDED" || event.type === "MODIFIED") {
      this.statistics.events += 1;
      if (this.#apply(object)) this.#report(object);
    } else if (event.type === "DELETED") {
      this.statistics.events += 1;
      const name = object.metadata?.name ?? "";
      const held = this.#jobs.get(name);
      if (held?.metadata?.uid === object.metadata?.uid) this.#jobs.delete(name);
      this.#bury(object);
      this.#report(object);
    }
    if (version) this.#resourceVersion = version;
    return undefined;
  }

  /** Keep a Job's state unless an older one; true when it was kept. */
  #apply(job: V1Job): boolean {
    const name = job.metadata?.name;
    const uid = job.metadata?.uid;
    if (!name || !uid || this.#tombstones.get(uid)?.job !== undefined) return false;
    const held = this.#jobs.get(name);
    if (held && held.metadata?.uid === uid && !isNewer(job, held)) return false;
    // Managed fields are most of a Job's bytes and say nothing about its state.
    if (job.metadata) delete job.metadata.managedFields;
    if (held && held.metadata?.uid !== uid) this.#bury(held);
    this.#jobs.set(name, job);
    return true;
  }

  #follow(name: string): void {
    if (this.#followed.has(name)) return;
    this.#followed.add(name);
    if (this.#followed.size > maxFollowedNames) this.#followed.delete(this.#followed.values().next().value!);
  }

  /** A change the list or the watch brought, told only for Jobs that reads asked for (the rest concern nobody). */
  #report(job: V1Job): void {
    if (!this.#onChange || !this.#followed.has(job.metadata?.name ?? "")) return;
    try {
      this.#onChange(this.namespace, job);
    } catch (error) {
      this.#logger?.warn(
        { namespace: this.namespace, error: (error as Error).message },
        "a Job change could not be told",
      );
    }
  }

  #bury(job: V1Job): void {
    const uid = job.metadata?.uid;
    if (uid) this.#remember(uid, { job, deletedAt: Date.now() });
  }

  #remember(uid: string, tombstone: Tombstone): void {
    this.#tombstones.delete(uid);
    this.#tombstones.set(uid, tombstone);
    if (this.#tombstones.size > maxTombstones) this.#tombstones.delete(this.#tombstones.keys().next().value!);
  }

  #markSynced(): void {
    this.#synced = true;
    this.#firstAttempt();
    for (const wake of this.#syncWaiters) wake();
  }

  #markUnsynced(): void {
    this.#synced = false;
  }
}

/** Whether `candidate` is a later state than `held`: resourceVersions are etcd revisions, compared as numbers. */
function isNewer(candidate: V1Job, held: V1Job): boolean {
  const next = candidate.metadata?.resourceVersion ?? "";
  const previous = held.metadata?.resourceVersion ?? "";
  if (/^\d+$/.test(next) && /^\d+$/.test(previous)) return BigInt(next) > BigInt(previous);
  return next !== previous;
}
