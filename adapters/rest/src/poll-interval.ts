/**
 * The polling interval suggested on each snapshot. The server is stateless, so nothing counts polls:
 * the back-off step is derived from the job's age instead. With initial interval i and multiplier m the
 * n-th poll happens after i·(1 + m + … + m^(n-1)), so the interval for a job of age t is the first term
 * of that series not yet used up by t, capped at the maximum. A Retry-After from the upstream wins.
 */

export interface PollingPolicy {
  initialIntervalMs: number;
  multiplier: number;
  maxIntervalMs: number;
}

/** Longest Retry-After honoured as is; beyond it the upstream is asking for something odd. */
const retryAfterCeilingMs = 3_600_000;

export function pollIntervalFor(policy: PollingPolicy, jobAgeMs: number, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, Math.round(retryAfterMs)), retryAfterCeilingMs);
  let interval = Math.min(policy.initialIntervalMs, policy.maxIntervalMs);
  let elapsed = 0;
  while (elapsed + interval <= jobAgeMs && interval < policy.maxIntervalMs) {
    elapsed += interval;
    interval = Math.min(policy.maxIntervalMs, interval * policy.multiplier);
  }
  return Math.round(interval);
}
