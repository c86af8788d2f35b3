/**
 * The polling interval suggested on each snapshot. The server is stateless, so nothing counts polls:
 * the back-off step is derived from the job's age instead. With initial interval i and multiplier m the
 * n-th poll happens after S(n) = i·(1 + m + … + m^(n-1)), so the interval for a job of age t is i·mⁿ for
 * the largest n with S(n) ≤ t, capped at the maximum. A Retry-After from the upstream wins.
 *
 * The step is computed in closed form, n = ⌊log_m(1 + t·(m−1)/i)⌋, not by walking the series: a status
 * read must cost the same for a job started a second ago and one started a year ago (with m = 1 the walk
 * would take t/i steps on the event loop).
 */

export interface PollingPolicy {
  initialIntervalMs: number;
  multiplier: number;
  maxIntervalMs: number;
}

/** Longest Retry-After honoured as is; beyond it the upstream is asking for something odd. */
const retryAfterCeilingMs = 3_600_000;

/** Shortest interval ever suggested: `Retry-After: 0` or a tiny config must not make clients spin. */
export const minimumPollIntervalMs = 100;

/** Time at which the n-th poll happens: the sum of the first n intervals. */
function elapsedAfter(steps: number, initial: number, multiplier: number): number {
  return multiplier === 1 ? steps * initial : (initial * (multiplier ** steps - 1)) / (multiplier - 1);
}

function seriesInterval(policy: PollingPolicy, jobAgeMs: number): number {
  const initial = Math.min(policy.initialIntervalMs, policy.maxIntervalMs);
  const { multiplier } = policy;
  if (multiplier <= 1 || initial >= policy.maxIntervalMs || jobAgeMs < initial) return initial;
  let steps = Math.floor(Math.log1p((jobAgeMs * (multiplier - 1)) / initial) / Math.log(multiplier));
  // Floating point may land one step off at an exact boundary; two comparisons settle it.
  if (elapsedAfter(steps + 1, initial, multiplier) <= jobAgeMs) steps += 1;
  if (steps > 0 && elapsedAfter(steps, initial, multiplier) > jobAgeMs) steps -= 1;
  return Math.min(policy.maxIntervalMs, initial * multiplier ** steps);
}

export function pollIntervalFor(policy: PollingPolicy, jobAgeMs: number, retryAfterMs?: number): number {
  const interval =
    retryAfterMs !== undefined
      ? Math.min(Math.max(0, retryAfterMs), retryAfterCeilingMs)
      : seriesInterval(policy, Math.max(0, jobAgeMs));
  return Math.max(minimumPollIntervalMs, Math.round(interval));
}
