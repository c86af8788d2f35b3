import type { Dispatcher } from "undici";

/**
 * What GitLab's `RateLimit-*` headers said last: how many requests remain until the window resets. The
 * adapter spreads what remains over what is left of the window, so clients poll slower before GitLab
 * starts answering 429.
 */
export class RateLimitState {
  #limit: number | undefined;
  #remaining: number | undefined;
  /** Milliseconds since the epoch. */
  #resetAt: number | undefined;
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  record(headers: Dispatcher.ResponseData["headers"]): void {
    const remaining = numberHeader(headers["ratelimit-remaining"]);
    if (remaining === undefined) return;
    this.#remaining = remaining;
    this.#limit = numberHeader(headers["ratelimit-limit"]);
    const reset = numberHeader(headers["ratelimit-reset"]);
    // RateLimit-Reset is epoch seconds on GitLab.
    this.#resetAt = reset === undefined ? undefined : reset * 1000;
  }

  /** Time until the window resets, when GitLab said when. */
  msUntilReset(): number | undefined {
    if (this.#resetAt === undefined) return undefined;
    return Math.max(0, this.#resetAt - this.#now());
  }

  /**
   * The polling interval to suggest: `base`, or longer once fewer than a fifth of the window's requests
   * remain (the remaining ones spread evenly until the reset, at most until the reset itself).
   */
  suggestPollIntervalMs(base: number): number {
    const untilReset = this.msUntilReset();
    if (this.#remaining === undefined || untilReset === undefined) return base;
    if (this.#limit !== undefined && this.#remaining >= this.#limit / 5) return base;
    if (this.#limit === undefined && this.#remaining > 100) return base;
    const spread = this.#remaining <= 0 ? untilReset : Math.ceil(untilReset / this.#remaining);
    return Math.max(base, Math.min(spread, untilReset));
  }
}

function numberHeader(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || !/^\d+$/.test(text.trim())) return undefined;
  return Number(text.trim());
}
