import { sleep } from "@jobtasks/core/adapter-utils";

/**
 * Ask `probe` until it finds something or the deadline passes, waiting `initialMs`, then ×1.5 each time up
 * to `maxMs`. Used where GitHub is eventually consistent: a dispatched run, a commit's run, a new attempt.
 */
export async function waitWithBackoff<T>(
  probe: () => Promise<T | undefined>,
  options: { timeoutMs: number; initialMs: number; maxMs?: number; signal: AbortSignal; now?: () => number },
): Promise<T | undefined> {
  const now = options.now ?? Date.now;
  const deadline = now() + options.timeoutMs;
  let delay = options.initialMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    const left = deadline - now();
    if (left <= 0) return undefined;
    await sleep(Math.min(delay, left), options.signal);
    delay = Math.min(delay * 1.5, options.maxMs ?? 10_000);
  }
}
