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
});
