import { setTimeout as sleep } from "node:timers/promises";
import type { DetailedTask } from "./task-shape.js";

export interface WaitForTaskChangeOptions {
  /** One look at the task (through the snapshot cache, so many waiters of one job cost one upstream read). */
  read: () => Promise<DetailedTask>;
  /** How long to wait for a change; 0 reads once. */
  waitMs: number;
  /** The request's lifetime: once aborted, the wait ends at once and reads nothing more. */
  signal: AbortSignal;
  /** Spacing of reads when the task suggests none. */
  defaultPollIntervalMs: number;
  /** Told each new status message while the wait goes on (a progress line is not a reason to answer). */
  onMessage?: (message: string) => void;
  now?: () => number;
  /** How to pause between reads; rejects once the signal aborts. A simulated clock replaces it in benchmarks. */
  sleep?: (milliseconds: number, signal: AbortSignal) => Promise<void>;
}

export function realSleep(milliseconds: number, signal: AbortSignal): Promise<void> {
  return sleep(milliseconds, undefined, { signal });
}

/** Reads closer together than this would only hit the snapshot cache, whatever an adapter suggests. */
const minimumPollIntervalMs = 10;

/**
 * The long poll behind task_status and the first answer to a client without the tasks extension: wait
 * until the task needs the caller (input_required) or has ended, or the wait runs out. A task already in
 * one of those states answers at once. Each answer costs the agent a model turn, so a new status message
 * alone does not end the wait; it is passed to onMessage instead.
 */
export async function waitForTaskChange(options: WaitForTaskChangeOptions): Promise<DetailedTask> {
  const now = options.now ?? Date.now;
  const deadline = now() + options.waitMs;
  let task = await options.read();
  let message = task.statusMessage;
  while (task.status === "working") {
    const remaining = deadline - now();
    if (remaining <= 0) return task;
    const interval = Math.max(task.pollIntervalMs ?? options.defaultPollIntervalMs, minimumPollIntervalMs);
    // Rejects as soon as the request is aborted: a closed connection stops the reads too.
    await (options.sleep ?? realSleep)(Math.min(interval, remaining), options.signal);
    task = await options.read();
    if (task.status === "working" && task.statusMessage !== undefined && task.statusMessage !== message) {
      message = task.statusMessage;
      options.onMessage?.(message);
    }
  }
  return task;
}
