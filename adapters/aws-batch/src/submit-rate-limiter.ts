import { sleep } from "@jobtasks/core/adapter-utils";

export interface SubmitRateLimiter {
  /** Resolves when one more SubmitJob may be sent. */
  acquire(signal?: AbortSignal): Promise<void>;
}

/**
 * Spaces SubmitJob calls so that this process stays under a rate (AWS caps SubmitJob at 50 per second per
 * account and Region, shared with everything else in the account). Calls get slots in arrival order, one
 * every 1000/rate milliseconds; no burst credit builds up while idle, so no one-second window ever holds
 * more than rate + 1 calls.
 */
export function createSubmitRateLimiter(perSecond: number, now: () => number = Date.now): SubmitRateLimiter {
  const intervalMs = 1000 / perSecond;
  let nextSlotAt = 0;
  return {
    async acquire(signal) {
      const current = now();
      const slot = Math.max(nextSlotAt, current);
      nextSlotAt = slot + intervalMs;
      if (slot > current) await sleep(slot - current, signal);
    },
  };
}
