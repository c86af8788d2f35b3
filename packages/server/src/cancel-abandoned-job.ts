import type { AdapterContext } from "@jobtasks/core";
import type { Logger } from "./logger.js";
import type { ReadTarget } from "./snapshot-reader.js";

export type AbandonedJobOutcome = "cancelled" | "not-cancellable" | "cancel-failed";

/**
 * Cancel a job nobody will follow (its client left, it outlived a synchronous call, its id cannot be
 * sealed). Runs under its own deadline: the caller's signal may be the very reason the job is abandoned.
 */
export async function cancelAbandonedJob(
  target: ReadTarget,
  context: AdapterContext,
  logger: Logger,
): Promise<AbandonedJobOutcome> {
  if (!target.adapter.doCancel) return "not-cancellable";
  try {
    await target.adapter.doCancel(target.ref, { ...context, signal: AbortSignal.timeout(10_000) });
    return "cancelled";
  } catch (error) {
    logger.warn({ adapter: target.instance, err: error }, "could not cancel an abandoned job");
    return "cancel-failed";
  }
}
