import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import { createSubmitRateLimiter } from "./submit-rate-limiter.js";

// vitest's fake timers do not reach node:timers/promises (vitest issue 10871), where the limiter waits: a
// spy that passes every wait through lets the test read the delays asked for.
vi.mock("node:timers/promises", async (importOriginal) => {
  const original = await importOriginal<typeof import("node:timers/promises")>();
  return { ...original, setTimeout: vi.fn(original.setTimeout) };
});

describe("createSubmitRateLimiter", () => {
  it("spaces calls 1000/rate milliseconds apart in arrival order, with no burst credit after idling", async () => {
    // A clock that stands still: the test proves the spacing the limiter asks for, not how busy the machine is.
    let clock = 5_000;
    const limiter = createSubmitRateLimiter(50, () => clock);
    const waits = () => vi.mocked(delay).mock.calls.map(([ms]) => ms);
    vi.mocked(delay).mockClear();
    // Six calls at once at 50/s: the first at once, then one every 20 ms, so the sixth waits 100 ms.
    await Promise.all(Array.from({ length: 6 }, () => limiter.acquire()));
    expect(waits()).toEqual([20, 40, 60, 80, 100]);
    // A second idle: the next call goes at once, and the one after it waits one interval, not less.
    clock += 1_000;
    vi.mocked(delay).mockClear();
    await limiter.acquire();
    await limiter.acquire();
    expect(waits()).toEqual([20]);
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
