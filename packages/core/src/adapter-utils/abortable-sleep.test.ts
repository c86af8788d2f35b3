import { describe, expect, it } from "vitest";
import { sleep, sleepUntil, untilAborted } from "./abortable-sleep.js";

describe("abortable sleep", () => {
  it("waits the time asked", async () => {
    const startedAt = performance.now();
    await sleep(30);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(29);
  });

  it("rejects with the signal's own reason when the signal aborts during the wait, and at once when it already has", async () => {
    const controller = new AbortController();
    const reason = new Error("client went away");
    const waiting = sleep(10_000, controller.signal);
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    await expect(sleep(10_000, controller.signal)).rejects.toBe(reason);
  });

  it("sleepUntil returns no earlier than the monotonic time asked", async () => {
    const until = performance.now() + 40;
    await sleepUntil(until);
    expect(performance.now()).toBeGreaterThanOrEqual(until);
  });

  it("untilAborted gives up on a promise that never settles, with the signal's reason", async () => {
    const controller = new AbortController();
    const waiting = untilAborted(new Promise(() => undefined), controller.signal);
    controller.abort(new Error("deadline"));
    await expect(waiting).rejects.toThrow("deadline");
  });

  it("untilAborted passes a settled promise's value or error through", async () => {
    const signal = new AbortController().signal;
    await expect(untilAborted(Promise.resolve(7), signal)).resolves.toBe(7);
    await expect(untilAborted(Promise.reject(new Error("refused")), signal)).rejects.toThrow("refused");
  });
});
