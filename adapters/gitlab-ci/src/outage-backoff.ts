/**
 * How long GitLab has been failing to answer (5xx, no connection, no answer in time), so that clients poll
 * slower the longer it lasts: the wait suggested is as long as the outage has lasted so far (so it doubles
 * from one read to the next), from one polling interval up to `maxOutageWaitMs`. A blip shorter than one
 * interval suggests nothing, and the server's quick retries take care of it. Any answer below 500 ends the
 * outage. In memory only: a fresh process starts at the base interval again.
 */
export const maxOutageWaitMs = 60_000;

export class OutageBackoff {
  #since: number | undefined;
  readonly #now: () => number;
  readonly #baseMs: number;

  constructor(now: () => number, baseMs: number) {
    this.#now = now;
    this.#baseMs = baseMs;
  }

  answered(): void {
    this.#since = undefined;
  }

  /** A read failed for want of an answer: the wait to suggest before the next, or none yet. */
  failed(): number | undefined {
    const now = this.#now();
    this.#since ??= now;
    const lasted = now - this.#since;
    if (lasted < this.#baseMs) return undefined;
    return Math.min(lasted, Math.max(this.#baseMs, maxOutageWaitMs));
  }
}
