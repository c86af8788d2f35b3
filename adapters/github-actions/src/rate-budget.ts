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

  /**
   * How long the server's safety read of each followed run may wait, with webhooks arriving, so that one
   * read of each (`requestsPerRead` requests) per interval takes at most `safetyShare` of the budget: of the
   * hourly limit, or, once the budget runs low (as for suggestPollIntervalMs), of what is left until the reset. The rest stays for what events
   * cannot carry (a finished run's result, an approval's questions) and for starting runs. 0 before GitHub
   * has reported a budget.
   */
  safetyReadIntervalMs(followedJobs: number, requestsPerRead: number, now: number = Date.now()): number {
    const reading = this.#reading;
    if (!reading || reading.limit <= 0) return 0;
    const hourMs = 60 * 60_000;
    let requestsPerMs = reading.limit / hourMs;
    // Only a budget running low counts what is left: a rate that jumped at every reset would move every
    // run's safety read at once, and bring them in one burst.
    if (reading.resetAt > now && reading.remaining <= reading.limit * this.lowShare)
      requestsPerMs = Math.min(requestsPerMs, reading.remaining / (reading.resetAt - now));
    const spare = safetyShare * requestsPerMs;
    if (!(spare > 0)) return hourMs;
    return Math.ceil((followedJobs * requestsPerRead) / spare);
  }
}

/** The share of the request budget the safety reads of runs followed with webhooks may take. */
export const safetyShare = 0.5;
