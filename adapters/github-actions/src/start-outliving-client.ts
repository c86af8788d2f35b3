import { UpstreamError, type AdapterContext, type AdapterLogger } from "@jobtasks/core";
import type { GithubApi } from "./github-actions-api.js";
import type { RunRef } from "./run-ref.js";

/** What a start reports while it goes, so that a run can be stopped if its client leaves meanwhile. */
export interface StartProgress {
  /** GitHub accepted the POST, or gave no answer to it: a run may exist from here on. */
  mayHaveStarted(): void;
  /** The run the POST created, as soon as it is known (before it can be read back). */
  created(ref: RunRef): void;
}

/**
 * The time a start may take once sent, beyond its own look-up bound: the POST's answer and the last
 * read-back. It replaces the client's signal, so a hung request still ends, as "the run may have started".
 */
export const startAnswerAllowanceMs = 30_000;

export interface StartOutlivingClientOptions {
  api: GithubApi;
  /** The tool call's context: its signal says whether the client is still there. */
  context: AdapterContext;
  /** The start's own deadline, from when it is sent. */
  deadlineMs: number;
  /** For the log: "the dispatch of workflow deploy.yml", "the re-run of run 42". */
  started: string;
}

/**
 * Run a start (dispatch, re-run) that must not be cut short by its client. The abandoned-start shape, as in
 * adapters/aws-batch/src/start-submission.ts (generalise it on a third use): nothing is sent for a client
 * that has already left; once the POST is sent, it and the run's look-up run under their own deadline, not
 * the client's signal, because a run may exist already; if the client left meanwhile, the run is cancelled
 * (nobody will hold its task id) and the start ends with the client's abort. The server would cancel an
 * abandoned start only if doStart returned, and a start cut short by the abort never does. A run that was
 * accepted but never found is logged as one that may exist, with the start's own error saying how to look.
 *
 * The POST may still wait in octokit's write queue (GitHub asks for a pause between writes) when the
 * client leaves: it is then sent, and its run cancelled.
 */
export async function startOutlivingClient<T extends { ref: RunRef }>(
  options: StartOutlivingClientOptions,
  start: (signal: AbortSignal, progress: StartProgress) => Promise<T>,
): Promise<T> {
  const client = options.context.signal;
  if (client.aborted) throw client.reason;
  let mayExist = false;
  let createdRef: RunRef | undefined;
  const progress: StartProgress = {
    mayHaveStarted: () => void (mayExist = true),
    created: (ref) => {
      mayExist = true;
      createdRef = ref;
    },
  };
  let result: T;
  try {
    result = await start(AbortSignal.timeout(options.deadlineMs), progress);
  } catch (error) {
    if (!client.aborted) throw error;
    if (createdRef) await cancelAbandonedRun(options.api, createdRef, options.started, options.context.logger);
    else if (mayExist) logRunMayExist(options, error);
    throw client.reason;
  }
  if (client.aborted) {
    await cancelAbandonedRun(options.api, result.ref, options.started, options.context.logger);
    throw client.reason;
  }
  return result;
}

function logRunMayExist(options: StartOutlivingClientOptions, error: unknown): void {
  // The start's error names what to look for (the correlation value, the run's recent list).
  const reason = error instanceof Error ? error.message : String(error);
  options.context.logger.warn(
    { error: reason },
    `the client left while ${options.started} was in flight; a run may have started that nobody follows`,
  );
}

/** How long the cancel of an abandoned run may take: the client's signal has fired already. */
const cancelDeadlineMs = 10_000;

/**
 * Cancel a run whose client left while its dispatch or re-run was in flight: nobody will ever hold its task
 * id, so left alone it would run (and deploy) unseen. `POST .../cancel` acts on the run's current attempt,
 * the one just started. Never throws: the caller ends the start aborted either way, and the log says what
 * became of the run.
 */
async function cancelAbandonedRun(api: GithubApi, ref: RunRef, started: string, logger: AdapterLogger): Promise<void> {
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
    logger.warn(
      { ...fields, error: reason },
      `${leftDuring}; the run it created could not be cancelled and may still run`,
    );
  }
}
