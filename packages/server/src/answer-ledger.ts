import type { LRUCache } from "lru-cache";
import { boundedCache } from "@jobtasks/core/adapter-utils";

/**
 * "An answer is sent once", within one process. Answers to one task are delivered one at a time (a second
 * caller waits for the first), and the keys a delivery answered are remembered for a while, so a second
 * answer is ignored even when the upstream, read again at once, still lists the question (a status that
 * lags behind its own answer endpoint, or an upstream that accepts a second answer). Across replicas the
 * keys come from upstream facts, and with shared state (AnswerClaims in shared-state.ts) a key is claimed
 * in Redis before its answer goes upstream, so only one replica sends it.
 */

export interface AnswerLedgerOptions {
  /** Tasks whose answered keys are remembered at once; the least recently answered is forgotten first. Default 10,000. */
  maxTasks?: number;
  /** How long answered keys are remembered. Default 10 minutes: far longer than any upstream lags. */
  rememberMs?: number;
  now?: () => number;
}

interface Remembered {
  keys: Set<string>;
  until: number;
}

export class AnswerLedger {
  /** How long answered keys are remembered (shared claims last as long). */
  readonly rememberMs: number;
  readonly #now: () => number;
  /** Per task: the end of the last delivery queued for it. */
  readonly #queues = new Map<string, Promise<unknown>>();
  /** Per task; only a new answer counts as a use, so the least recently answered task is forgotten first. */
  readonly #answered: LRUCache<string, Remembered>;

  constructor(options: AnswerLedgerOptions = {}) {
    this.#answered = boundedCache(options.maxTasks ?? 10_000);
    this.rememberMs = options.rememberMs ?? 10 * 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** Run `deliver` once every earlier delivery for the same task has ended (resolved or not). */
  async serialise<T>(task: string, deliver: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(task) ?? Promise.resolve();
    const run = previous.then(deliver);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#queues.set(task, settled);
    try {
      return await run;
    } finally {
      // Only the last in line removes the queue, so the map holds tasks with a delivery under way.
      if (this.#queues.get(task) === settled) this.#queues.delete(task);
    }
  }

  /** The keys of `task` answered from this process and still remembered. */
  answered(task: string): ReadonlySet<string> {
    const remembered = this.#answered.peek(task);
    if (!remembered) return new Set();
    if (remembered.until <= this.#now()) {
      this.#answered.delete(task);
      return new Set();
    }
    return remembered.keys;
  }

  remember(task: string, keys: readonly string[]): void {
    const keep = new Set([...this.answered(task), ...keys]);
    this.#answered.set(task, { keys: keep, until: this.#now() + this.rememberMs });
  }
}
