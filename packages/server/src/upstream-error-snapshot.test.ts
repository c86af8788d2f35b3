import { JobNotFoundError, UpstreamError } from "@jobtasks/core";
import { describe, expect, it } from "vitest";
import { upstreamErrorSnapshot } from "./upstream-error-snapshot.js";

const since = Date.parse("2026-01-01T00:00:00.000Z");
const clock = (elapsedMs: number) => ({ since, now: since + elapsedMs, budgetMs: 60_000 });

describe("upstreamErrorSnapshot", () => {
  it("answers a vanished job as expired, outside the outage", () => {
    expect(upstreamErrorSnapshot(new JobNotFoundError("gone"), clock(0))).toMatchObject({
      snapshot: "expired",
      countsAsOutage: false,
    });
  });

  it("fails a refused read at once", () => {
    const answer = upstreamErrorSnapshot(new UpstreamError("forbidden", { httpStatus: 403 }), clock(0));
    expect(answer).toMatchObject({
      snapshot: { status: "failed", rawStatus: "upstream_error" },
      countsAsOutage: false,
      log: { level: "warn" },
    });
  });

  it("waits out a throttle without counting it, whatever the outage's age", () => {
    const answer = upstreamErrorSnapshot(
      new UpstreamError("slow down", { httpStatus: 429, retryAfterMs: 5000 }),
      clock(10 * 60_000),
    );
    expect(answer).toMatchObject({
      snapshot: { status: "working", rawStatus: "upstream_throttled", pollIntervalMs: 5000 },
      countsAsOutage: false,
    });
  });

  it("stays working within the budget, with the outage's start and the upstream's hint", () => {
    const answer = upstreamErrorSnapshot(
      new UpstreamError("bad gateway", { httpStatus: 502, retryAfterMs: 1500 }),
      clock(59_999),
    );
    expect(answer).toMatchObject({
      snapshot: { status: "working", rawStatus: "upstream_unavailable", pollIntervalMs: 1500 },
      countsAsOutage: true,
    });
    expect(answer.snapshot !== "expired" && answer.snapshot.message).toContain("2026-01-01T00:00:00.000Z");
  });

  it("fails once the outage reaches the budget, and logs an adapter's own exception as an error", () => {
    const answer = upstreamErrorSnapshot(new TypeError("bug"), clock(60_000));
    expect(answer).toMatchObject({
      snapshot: { status: "failed", rawStatus: "upstream_unavailable" },
      countsAsOutage: true,
      log: { level: "error" },
    });
    expect(answer.snapshot !== "expired" && answer.snapshot.message).not.toContain("bug");
  });
});
