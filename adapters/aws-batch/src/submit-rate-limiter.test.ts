import { describe, expect, it, vi } from "vitest";
import { createSubmitRateLimiter } from "./submit-rate-limiter.js";

describe("createSubmitRateLimiter", () => {
  it("spaces calls 1000/rate milliseconds apart in arrival order", async () => {
    // A fake clock: the test proves the spacing the limiter asks for, not how busy the machine is.
    vi.useFakeTimers();
    try {
      const limiter = createSubmitRateLimiter(50, () => Date.now());
      const startedAt = Date.now();
      const granted: Array<{ caller: number; atMs: number }> = [];
      const all = Promise.all(
        Array.from({ length: 6 }, async (_, caller) => {
          await limiter.acquire();
          granted.push({ caller, atMs: Date.now() - startedAt });
        }),
      );
      // Six calls at 50/s: one at once, then one every 20 ms, so the sixth is not let through before 100 ms.
      await vi.advanceTimersByTimeAsync(99);
      expect(granted).toHaveLength(5);
      await vi.advanceTimersByTimeAsync(1);
      await all;
      expect(granted).toEqual([0, 20, 40, 60, 80, 100].map((atMs, caller) => ({ caller, atMs })));
    } finally {
      vi.useRealTimers();
    }
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
