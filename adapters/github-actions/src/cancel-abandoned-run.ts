import { UpstreamError, type AdapterLogger } from "@jobtasks/core";
import type { GithubApi } from "./github-actions-api.js";
import type { RunRef } from "./run-ref.js";

/** How long the cancel of an abandoned run may take: the client's signal has fired already. */
const cancelDeadlineMs = 10_000;

/**
 * Cancel a run whose client left while its dispatch or re-run was in flight: nobody will ever hold its task
 * id, so left alone it would run (and deploy) unseen. `POST .../cancel` acts on the run's current attempt,
 * the one just started. Never throws: the caller ends the start aborted either way, and the log says what
 * became of the run.
 */
export async function cancelAbandonedRun(api: GithubApi, ref: RunRef, started: string, logger: AdapterLogger): Promise<void> {
  const fields = { runId: ref.runId, attempt: ref.attempt };
  const leftDuring = `the client left while ${started} was in flight`;
  try {
    await api.cancelRun(ref, false, { signal: AbortSignal.timeout(cancelDeadlineMs) });
    logger.info(fields, `${leftDuring}; cancelled the run it created`);
  } catch (error) {
    // 409: GitHub cannot cancel it any more, because it has finished already; nothing runs unseen.
    if (error instanceof UpstreamError && error.httpStatus === 409) {
      logger.info(fields, `${leftDuring}; the run it created had finished already`);
      return;
    }
    const reason = error instanceof Error ? error.message : String(error);
    logger.warn({ ...fields, error: reason }, `${leftDuring}; the run it created could not be cancelled and may still run`);
  }
}
