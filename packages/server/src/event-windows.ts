import type { AnyJobAdapter } from "@jobtasks/core";
import type { Logger } from "./logger.js";

export interface EventWindowsOptions {
  /** The least time a cached snapshot answers while its instance's events arrive (eventSnapshotCacheMs). */
  baseWindowMs: number;
  /** How long after an instance's last verified delivery its events count as arriving. */
  liveForMs: number;
  logger: Logger;
  now: () => number;
}

/** How long a job counts as followed after it was last asked for: longer than any client's poll or wait. */
const followedForMs = 5 * 60_000;

/**
 * How long a cached snapshot may answer, for the jobs of adapter instances whose upstream events arrive.
 * An instance's events count as arriving while it has had a verified delivery in the last `liveForMs`
 * (any delivery: a ping, another job's event); then every job of it, read before its own first event or
 * not, is served from its cached snapshot for the window, since its changes come as events, and the read
 * after the window is the safety net for a lost delivery. An instance whose events do not arrive (a
 * webhook never set up, a wrong URL or secret, a proxy that drops them) is polled exactly as without
 * events, and a warning says so once per quiet spell.
 *
 * The window is at least `baseWindowMs`; an adapter whose upstream meters requests stretches it
 * (`events.safetyReadIntervalMs`) so that one safety read of every followed job per window fits its budget,
 * and each job's stretched window is spread over up to half as much again (by its key), so the re-reads of
 * jobs followed at the same moment do not come in one burst.
 */
export class EventWindows {
  readonly #options: EventWindowsOptions;
  /** Per instance: when its last verified delivery arrived. */
  readonly #lastDelivery = new Map<string, number>();
  /** Per instance: when it was first asked about while no delivery had arrived, and whether that was said. */
  readonly #quiet = new Map<string, { since: number; warned: boolean }>();
  readonly #followed = new Map<string, FollowedJobs>();

  constructor(options: EventWindowsOptions) {
    this.#options = options;
  }

  /** A delivery to `instance` verified (whatever it held): its events arrive. */
  noteDelivery(instance: string): void {
    const now = this.#options.now();
    const last = this.#lastDelivery.get(instance);
    this.#lastDelivery.set(instance, now);
    if (last !== undefined && now - last < this.#options.liveForMs) return;
    this.#quiet.delete(instance);
    this.#options.logger.info(
      { adapter: instance, windowSeconds: Math.round(this.#options.baseWindowMs / 1000) },
      "upstream events arriving: this instance's jobs are answered from their cached snapshots between events, and read again at least every window",
    );
  }

  /**
   * The window for a cached snapshot of a job of `instance` (`snapshotKey` names it as a task follows it),
   * or undefined while the instance's events do not arrive: then it is polled as without events.
   */
  windowMs(instance: string, adapter: AnyJobAdapter, snapshotKey: string): number | undefined {
    const now = this.#options.now();
    const last = this.#lastDelivery.get(instance);
    if (last === undefined || now - last >= this.#options.liveForMs) {
      if (adapter.events) this.#noteQuiet(instance, last, now);
      return undefined;
    }
    const base = this.#options.baseWindowMs;
    const safetyReadIntervalMs = adapter.events?.safetyReadIntervalMs;
    if (!safetyReadIntervalMs) return base;
    let followed = this.#followed.get(instance);
    if (!followed) {
      followed = new FollowedJobs(followedForMs);
      this.#followed.set(instance, followed);
    }
    const stretched = safetyReadIntervalMs.call(adapter.events, followed.note(snapshotKey, now));
    if (!(stretched > base)) return base;
    return Math.max(base, Math.round(stretched * (1 + 0.5 * spreadOf(snapshotKey))));
  }

  /** An instance with events, asked about while none arrives: say so once per quiet spell, once it is long. */
  #noteQuiet(instance: string, last: number | undefined, now: number): void {
    let quiet = this.#quiet.get(instance);
    if (!quiet) {
      quiet = { since: last ?? now, warned: false };
      this.#quiet.set(instance, quiet);
    }
    if (quiet.warned || now - quiet.since < this.#options.liveForMs) return;
    quiet.warned = true;
    this.#options.logger.warn(
      { adapter: instance, quietMinutes: Math.round((now - quiet.since) / 60_000) },
      last === undefined
        ? "upstream events are configured, but no verified delivery has arrived: this instance's jobs are polled as without events (check the webhook's URL, /hooks/<instance>, its secret and its recent deliveries)"
        : "upstream events stopped arriving: this instance's jobs are polled as without events until the next verified delivery (check the webhook's recent deliveries)",
    );
  }
}

/**
 * Roughly how many distinct jobs were asked for in the last `horizonMs`: the jobs of this and the previous
 * period, each counted once. Two sets, so no timer and no per-job expiry.
 */
class FollowedJobs {
  #current = new Set<string>();
  #previous = new Set<string>();
  /** Members of #previous not (yet) in #current. */
  #previousOnly = 0;
  #periodStart = Number.NEGATIVE_INFINITY;

  constructor(private readonly horizonMs: number) {}

  /** Note a job asked for now; returns the count of jobs followed. */
  note(key: string, now: number): number {
    const periodMs = this.horizonMs / 2;
    if (now - this.#periodStart >= periodMs) {
      const skipped = now - this.#periodStart >= 2 * periodMs;
      this.#previous = skipped ? new Set() : this.#current;
      this.#current = new Set();
      this.#previousOnly = this.#previous.size;
      this.#periodStart = now;
    }
    if (!this.#current.has(key)) {
      this.#current.add(key);
      if (this.#previous.has(key)) this.#previousOnly -= 1;
    }
    return this.#current.size + this.#previousOnly;
  }
}

/** A fraction in [0, 1) fixed for a key (FNV-1a), so a job's spread is the same at every read. */
function spreadOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index += 1) {
    hash ^= key.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) / 2 ** 32;
}
