import { setTimeout as delay } from "node:timers/promises";

/**
 * Waiting that a signal ends. The platform's timer (`node:timers/promises`) does the waiting; these only
 * make an abort reject with the signal's own reason, which is what callers test for (timers/promises
 * rejects with an AbortError of its own).
 */

/** Wait `milliseconds`, or reject with the signal's reason as soon as `signal` aborts. */
export async function sleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  await delay(milliseconds, undefined, signal ? { signal } : undefined).catch((error: unknown) => {
    throw signal?.aborted ? signal.reason : error;
  });
}

/**
 * Wait until the monotonic clock (`performance.now()`) reaches `time`, or reject with the signal's reason.
 * A timer may fire a millisecond early, so the clock is read again after each one.
 */
export async function sleepUntil(time: number, signal?: AbortSignal): Promise<void> {
  for (let left = time - performance.now(); left > 0; left = time - performance.now()) {
    await sleep(Math.ceil(left), signal);
  }
}

/**
 * Wait for `promise`, but give up with the signal's reason when it aborts: a call that ignores its signal
 * must not hold its caller. The abandoned promise may still reject later; nobody waits for it any more.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => undefined);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
