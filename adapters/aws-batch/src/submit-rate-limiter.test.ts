import { describe, expect, it } from "vitest";
import { createSubmitRateLimiter } from "./submit-rate-limiter.js";

describe("createSubmitRateLimiter", () => {
  it("spaces calls 1000/rate milliseconds apart in arrival order", async () => {
    const limiter = createSubmitRateLimiter(50);
    const startedAt = performance.now();
    const times: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        await limiter.acquire();
        times.push(performance.now() - startedAt);
      }),
    );
    // Six calls at 50/s need at least 5 gaps of 20 ms.
    expect(times.at(-1)).toBeGreaterThanOrEqual(95);
    expect(times.at(0)).toBeLessThan(15);
  });

  it("stops waiting when the caller aborts", async () => {
    const limiter = createSubmitRateLimiter(1);
    await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new Error("gone"));
    await expect(waiting).rejects.toThrow("gone");
  });
});
