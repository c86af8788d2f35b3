import { setTimeout as sleep } from "node:timers/promises";

/** How often an open prompt checks that its question is still asked (the task may be answered elsewhere). */
const checkEveryMs = 1_000;

/**
 * While a prompt is open, ext-tasks waits for its answer and reads the task no more: this reads it, and
 * calls `gone` once the question is no longer asked (answered from another terminal, or the task ended).
 */
export async function watchStillAsked(
  stillAsks: () => Promise<boolean>,
  signal: AbortSignal,
  gone: () => void,
): Promise<void> {
  while (!signal.aborted) {
    // An abort ends the wait early; the check below then returns.
    await sleep(checkEveryMs, undefined, { signal }).catch(() => undefined);
    if (signal.aborted) return;
    // A failed read proves nothing: the next one, or the follow itself, will tell.
    const asks = await stillAsks().catch(() => true);
    if (!asks) return gone();
  }
}
