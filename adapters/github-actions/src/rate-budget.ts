/**
 * The primary rate budget as GitHub last reported it (x-ratelimit-* headers, which 304 answers carry too).
 * Used to slow clients down before the budget runs out instead of failing their tasks. In memory only: a
 * fresh process simply starts optimistic and learns from its first answer.
 */
export interface RateBudgetReading {
  limit: number;
  remaining: number;
  /** Epoch milliseconds when the budget refills. */
  resetAt: number;
}

export class RateBudget {
  #reading: RateBudgetReading | undefined;

  constructor(
    /** Below this share of the limit, polling slows down. */
    private readonly lowShare = 0.1,
  ) {}

  get reading(): RateBudgetReading | undefined {
    return this.#reading;
  }

  record(headers: Headers): void {
    const limit = Number(headers.get("x-ratelimit-limit"));
    const remaining = Number(headers.get("x-ratelimit-remaining"));
    const reset = Number(headers.get("x-ratelimit-reset"));
    if (
      !headers.has("x-ratelimit-remaining") ||
      !Number.isFinite(limit) ||
      !Number.isFinite(remaining) ||
      !Number.isFinite(reset)
    ) {
      return;
    }
    this.#reading = { limit, remaining, resetAt: reset * 1000 };
  }

  /**
   * The polling interval to suggest: the base while the budget is healthy; once it runs low, spread what is
   * left over the time until it refills (each poll costing `requestsPerPoll`).
   */
  suggestPollIntervalMs(baseMs: number, requestsPerPoll: number, now: number = Date.now()): number {
    const reading = this.#reading;
    if (!reading || reading.resetAt <= now || reading.remaining > reading.limit * this.lowShare) return baseMs;
    const untilReset = reading.resetAt - now;
    const pollsLeft = reading.remaining / Math.max(1, requestsPerPoll);
    const spread = pollsLeft < 1 ? untilReset : untilReset / pollsLeft;
    return Math.max(baseMs, Math.ceil(spread));
  }
}
