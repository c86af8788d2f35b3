import { describe, expect, it } from "vitest";
import { pollIntervalFor } from "./poll-interval.js";

const policy = { initialIntervalMs: 1_000, multiplier: 2, maxIntervalMs: 10_000 };

describe("pollIntervalFor", () => {
  it("grows with the job's age along the back-off series, capped", () => {
    // Polls at 1 s, 3 s, 7 s, 15 s: the interval doubles once each previous interval is used up.
    expect(pollIntervalFor(policy, 0)).toBe(1_000);
    expect(pollIntervalFor(policy, 999)).toBe(1_000);
    expect(pollIntervalFor(policy, 1_000)).toBe(2_000);
    expect(pollIntervalFor(policy, 3_500)).toBe(4_000);
    expect(pollIntervalFor(policy, 7_000)).toBe(8_000);
    expect(pollIntervalFor(policy, 60_000)).toBe(10_000);
    expect(pollIntervalFor(policy, 365 * 24 * 3_600_000)).toBe(10_000);
  });

  it("lets Retry-After win over the series, in both directions", () => {
    expect(pollIntervalFor(policy, 60_000, 1_500)).toBe(1_500);
    expect(pollIntervalFor(policy, 0, 20_000)).toBe(20_000);
    expect(pollIntervalFor(policy, 0, 24 * 3_600_000)).toBe(3_600_000);
  });

  it("never starts above the maximum", () => {
    expect(pollIntervalFor({ initialIntervalMs: 5_000, multiplier: 1.5, maxIntervalMs: 2_000 }, 0)).toBe(2_000);
  });

  it("computes the step in closed form: multiplier 1 keeps the initial interval at any job age without looping", () => {
    // No stopwatch: these ages are out of reach of any walk along the series (about 9·10¹³ steps for the
    // flat policy, trillions for the nearly flat one), so a loop would hit the test timeout, not return.
    const flat = { initialIntervalMs: 100, multiplier: 1, maxIntervalMs: 10_000 };
    expect(pollIntervalFor(flat, Number.MAX_SAFE_INTEGER)).toBe(100);
    const nearlyFlat = { initialIntervalMs: 100, multiplier: 1 + 1e-12, maxIntervalMs: 1_000_000 };
    const interval = pollIntervalFor(nearlyFlat, Number.MAX_SAFE_INTEGER);
    expect(interval).toBeGreaterThan(100);
    expect(interval).toBeLessThanOrEqual(1_000_000);
  });

  it("agrees with the back-off series at every boundary", () => {
    const series = { initialIntervalMs: 2_000, multiplier: 1.5, maxIntervalMs: 30_000 };
    // Polls at 2 s, 5 s, 9.5 s, 16.25 s: the interval grows exactly when the previous one is used up.
    expect([0, 1_999, 2_000, 4_999, 5_000, 9_499, 9_500, 16_250].map((age) => pollIntervalFor(series, age))).toEqual([
      2_000, 2_000, 3_000, 3_000, 4_500, 4_500, 6_750, 10_125,
    ]);
  });

  it("never suggests less than 100 ms, even for Retry-After: 0 or a tiny initial interval", () => {
    expect(pollIntervalFor(policy, 0, 0)).toBe(100);
    expect(pollIntervalFor(policy, 0, 40)).toBe(100);
    expect(pollIntervalFor({ initialIntervalMs: 1, multiplier: 2, maxIntervalMs: 5 }, 0)).toBe(100);
  });
});
