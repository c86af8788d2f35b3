import { setTimeout as sleep } from "node:timers/promises";
import type { AdapterContext, CallToolResult } from "@jobtasks/core";
import type { ReadTarget, SnapshotReader } from "./snapshot-reader.js";
import { formatDuration } from "./retry-upstream.js";
import { TaskProtocolError } from "./protocol-error.js";
import { cancelAbandonedJob } from "./cancel-abandoned-job.js";
import type { Logger } from "./logger.js";
import type { SnapshotObserver } from "./progress-notifications.js";

export interface WaitForResultOptions {
  reader: SnapshotReader;
  target: ReadTarget;
  context: AdapterContext;
  waitMs: number;
  pollIntervalMs: number;
  toolName: string;
  logger: Logger;
  /** Sees every observation, for progress notifications. */
  observe?: SnapshotObserver | undefined;
  /** Resolves when the job reports a change (an upstream event): the wait reads again at once. */
  changed?: (signal: AbortSignal) => Promise<void>;
}

/**
 * The synchronous path, for clients that do not speak the tasks extension but call a tool that allows it:
 * poll the job until it ends or the bound runs out. A job that would need input, or outlives the bound, is
 * cancelled (when the adapter can) rather than left running where nobody can follow it.
 */
export async function waitForResult(options: WaitForResultOptions): Promise<CallToolResult> {
  try {
    return await pollUntilDone(options);
  } catch (error) {
    // The client gave up (its own timeout, a closed connection): nobody holds a task id for this job, so
    // it is cancelled rather than left running where nobody can follow it.
    if (options.context.signal.aborted) await abandon(options, "the client stopped waiting");
    throw error;
  }
}

async function pollUntilDone(options: WaitForResultOptions): Promise<CallToolResult> {
  const { reader, target, context, toolName } = options;
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    const snapshot = await reader.read(target, context);
    await options.observe?.(snapshot);
    switch (snapshot.status) {
      case "completed":
        return snapshot.result ?? { content: [] };
      case "failed": {
        const error = snapshot.error ?? { code: -32603, message: snapshot.message ?? "The job failed" };
        throw new TaskProtocolError(error.code, error.message, error.data);
      }
      case "cancelled":
        return errorResult(`${toolName} was cancelled upstream before it finished.`);
      case "input_required":
        return abandon(
          options,
          `${toolName} needs input (${snapshot.message ?? "an approval"}), which only a client with the tasks extension can give`,
        );
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      return abandon(
        options,
        `${toolName} did not finish within ${formatDuration(options.waitMs)}; use a client with the tasks extension to follow long jobs`,
      );
    }
    // The last read falls on the deadline itself: a job that ends within the bound is not given up on early.
    await pauseUntilChanged(options, Math.min(options.pollIntervalMs, remaining));
  }
}

/** Sleep, or less when the job reports a change; rejects when the client goes away. */
async function pauseUntilChanged(options: WaitForResultOptions, milliseconds: number): Promise<void> {
  const { signal } = options.context;
  if (!options.changed) return void (await sleep(milliseconds, undefined, { signal }));
  const woken = new AbortController();
  const any = AbortSignal.any([signal, woken.signal]);
  void options.changed(any).then(() => woken.abort());
  try {
    await sleep(milliseconds, undefined, { signal: any });
  } catch (error) {
    if (signal.aborted || !woken.signal.aborted) throw error;
  } finally {
    woken.abort();
  }
}

async function abandon(options: WaitForResultOptions, reason: string): Promise<CallToolResult> {
  switch (await cancelAbandonedJob(options.target, options.context, options.logger)) {
    case "cancelled":
      return errorResult(`${reason}. The job was cancelled.`);
    case "not-cancellable":
      return errorResult(`${reason}. The job is still running upstream.`);
    case "cancel-failed":
      return errorResult(`${reason}. Cancelling the job failed too; it may still be running upstream.`);
  }
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
