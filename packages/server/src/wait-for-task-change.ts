import { setTimeout as sleep } from "node:timers/promises";
import type { DetailedTask } from "./task-shape.js";
import { readerDefaults } from "./snapshot-reader.js";

const defaultSlowUpstreamAnswerMs = readerDefaults.slowUpstreamAnswerMs;

/**
 * What one look may cost: how long it may wait for the upstream before it is answered with the last snapshot
 * (see SnapshotReader.read), and the end of the wait's previous look, after which its snapshot must be read.
 */
export interface LookBounds {
  answerWithinMs: number;
  readSince?: number;
}

export interface WaitForTaskChangeOptions {
  /** One look at the task (through the snapshot cache, so many waiters of one job cost one upstream read). */
  read: (bounds: LookBounds) => Promise<DetailedTask>;
  /** How long to wait for a change; 0 reads once. */
  waitMs: number;
  /** The request's lifetime: once aborted, the wait ends at once and reads nothing more. */
  signal: AbortSignal;
  /**
   * The reader's slow-upstream bound: a wait shorter than it still gives its one look that long, and a
   * longer wait answers by its own end whatever a read in flight is doing. Default 5 s.
   */
  slowUpstreamAnswerMs?: number;
  /** Once aborted (the server is stopping), the wait answers at once with the task as last seen. */
  stopWaiting?: AbortSignal;
  /** Spacing of reads when the task suggests none. */
  defaultPollIntervalMs: number;
  /**
   * Resolves when the job reports a change (an upstream event; see JobChanges): the pause ends and the
   * wait looks again at once. Its registration ends with the signal it is given.
   */
  changed?: (signal: AbortSignal) => Promise<void>;
  /** Told each new status message while the wait goes on (a progress line is not a reason to answer). */
  onMessage?: (message: string) => void;
  now?: () => number;
  /** How to pause between reads; rejects once the signal aborts. A simulated clock replaces it in benchmarks. */
  sleep?: (milliseconds: number, signal: AbortSignal) => Promise<void>;
}

export function realSleep(milliseconds: number, signal: AbortSignal): Promise<void> {
  return sleep(milliseconds, undefined, { signal });
}

/** How long the last look of a long wait is given to be answered before the wait's end. */
const lastLookAllowanceMs = 1000;

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
  const startedAt = now();
  const slowMs = options.slowUpstreamAnswerMs ?? defaultSlowUpstreamAnswerMs;
  const answerBy = startedAt + Math.max(options.waitMs, slowMs);
  // The last look starts early enough to be answered by answerBy: a look begun at the very end would have
  // no time left for even a healthy upstream, and would always report it slow.
  const deadline = Math.min(startedAt + options.waitMs, answerBy - Math.min(slowMs, lastLookAllowanceMs));
  let task = await options.read({ answerWithinMs: answerBy - now() });
  let lastLookEnded = now();
  let message = task.statusMessage;
  while (task.status === "working" && !options.stopWaiting?.aborted) {
    const remaining = deadline - now();
    if (remaining <= 0) return task;
    const interval = Math.max(task.pollIntervalMs ?? options.defaultPollIntervalMs, minimumPollIntervalMs);
    // A pause cut to the deadline ends in the last look: a timer may fire a millisecond before now() reaches
    // the deadline, and that millisecond must not buy another read right after this one.
    const cutToDeadline = interval >= remaining;
    // Rejects as soon as the request is aborted: a closed connection stops the reads too.
    const paused = await pause(options, Math.min(interval, remaining));
    if (paused === "stopped") return task;
    // Each look is newer than the last: the one on the deadline must not be answered by the cache with
    // what the previous look saw (a job that ended in between would be missed).
    task = await options.read({ answerWithinMs: Math.max(0, answerBy - now()), readSince: lastLookEnded });
    lastLookEnded = now();
    if (task.status === "working" && task.statusMessage !== undefined && task.statusMessage !== message) {
      message = task.statusMessage;
      options.onMessage?.(message);
    }
    // A look woken early by the job's change is not the last: the wait goes on to its deadline.
    if (cutToDeadline && paused === "slept") return task;
  }
  return task;
}

/**
 * Sleep ("slept"), or end early when the server stops waiting ("stopped") or the job changed ("woken");
 * rejects when the request is aborted.
 */
async function pause(options: WaitForTaskChangeOptions, milliseconds: number): Promise<"slept" | "stopped" | "woken"> {
  const sleep = options.sleep ?? realSleep;
  const stop = options.stopWaiting;
  if (!stop && !options.changed) {
    await sleep(milliseconds, options.signal);
    return "slept";
  }
  // Ended by the job's change (an event) too; aborted when the pause ends, which forgets the registration.
  const woken = new AbortController();
  const any = AbortSignal.any([options.signal, woken.signal, ...(stop ? [stop] : [])]);
  void options.changed?.(any).then(() => woken.abort());
  try {
    await sleep(milliseconds, any);
    return "slept";
  } catch (error) {
    if (options.signal.aborted) throw error;
    if (stop?.aborted) return "stopped";
    if (woken.signal.aborted) return "woken";
    throw error;
  } finally {
    woken.abort();
  }
}
