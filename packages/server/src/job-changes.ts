/**
 * Who waits for a job to change, by job key (job-identity.ts): the waits of task_status, synchronous calls
 * and task subscriptions register here between their reads, and an upstream event about the job wakes
 * them all at once instead of at their next poll. Holds nothing once a wait ends.
 */
export class JobChanges {
  readonly #waiting = new Map<string, Set<() => void>>();

  /**
   * Resolves at the job's next change. A wait that ends first aborts `signal`: its registration is then
   * forgotten and the promise never settles (callers race it with their own pause).
   */
  next(key: string, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return;
      let waiting = this.#waiting.get(key);
      if (!waiting) {
        waiting = new Set();
        this.#waiting.set(key, waiting);
      }
      const forget = () => {
        signal.removeEventListener("abort", forget);
        waiting.delete(wake);
        if (waiting.size === 0 && this.#waiting.get(key) === waiting) this.#waiting.delete(key);
      };
      const wake = () => {
        forget();
        resolve();
      };
      waiting.add(wake);
      signal.addEventListener("abort", forget, { once: true });
    });
  }

  /** Wake every wait on the job; returns how many there were. */
  notify(key: string): number {
    const waiting = this.#waiting.get(key);
    if (!waiting) return 0;
    const count = waiting.size;
    this.#waiting.delete(key);
    // Each wake removes itself from the set: iterate over a copy.
    for (const wake of Array.from(waiting)) wake();
    return count;
  }

  /** Registrations held now (for tests: none is left behind by a wait that ended). */
  get size(): number {
    let count = 0;
    for (const waiting of this.#waiting.values()) count += waiting.size;
    return count;
  }
}
