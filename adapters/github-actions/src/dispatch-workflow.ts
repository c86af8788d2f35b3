import { randomUUID } from "node:crypto";
import { UpstreamError, type AdapterContext, type JobSnapshot, type StartedJob } from "@jobtasks/core";
import { mayHaveActed } from "@jobtasks/core/adapter-utils";
import type { GithubApi } from "./github-actions-api.js";
import type { RunRef } from "./run-ref.js";
import { startAnswerAllowanceMs, startOutlivingClient, type StartProgress } from "./start-outliving-client.js";
import { describeWaitEnd, isUndecidedPost, waitAfterAcceptance } from "./wait-after-acceptance.js";

export interface DispatchRequest {
  owner: string;
  repo: string;
  workflow: string;
  ref: string;
  inputs: Record<string, string>;
  /** The workflow input that its run-name shows; needed only when GitHub answers without a run id. */
  correlationInput: string | undefined;
}

export interface DispatchSettings {
  returnRunDetails: boolean;
  correlationTimeoutMs: number;
  correlationPollMs: number;
}

const firstSnapshot: JobSnapshot = { status: "working", rawStatus: "queued", message: "dispatched; queued" };

/**
 * Dispatch a workflow and return its run, never before the run is visible. GitHub answers the run id
 * directly when asked (`return_run_details`); older GitHub Enterprise Server answers 204 without one, and
 * then the run is found by the unique value passed in the correlation input. A client that leaves once the
 * dispatch is sent does not cut it short: the run is found and cancelled (see start-outliving-client.ts).
 */
export async function dispatchWorkflow(
  api: GithubApi,
  request: DispatchRequest,
  settings: DispatchSettings,
  context: AdapterContext,
  now: () => number = Date.now,
): Promise<StartedJob<RunRef>> {
  return startOutlivingClient(
    {
      api,
      context,
      deadlineMs: settings.correlationTimeoutMs + startAnswerAllowanceMs,
      started: `the dispatch of workflow ${request.workflow}`,
    },
    (signal, progress) => dispatchAndFindRun(api, request, settings, { signal, progress, now }),
  );
}

async function dispatchAndFindRun(
  api: GithubApi,
  request: DispatchRequest,
  settings: DispatchSettings,
  { signal, progress, now }: { signal: AbortSignal; progress: StartProgress; now: () => number },
): Promise<StartedJob<RunRef>> {
  const repository = { owner: request.owner, repo: request.repo };
  const distinctId = request.correlationInput ? randomUUID() : undefined;
  const inputs = { ...request.inputs };
  if (request.correlationInput && distinctId) inputs[request.correlationInput] = distinctId;
  // GitHub filters by its own clock at whole seconds; a margin covers skew between the two clocks.
  const createdSince = new Date(now() - 60_000).toISOString().replace(/\.\d+Z$/, "Z");

  const dispatch = {
    workflow: request.workflow,
    ref: request.ref,
    inputs,
    returnRunDetails: settings.returnRunDetails,
  };
  let runId: number | string | undefined;
  let failure: UpstreamError | undefined;
  try {
    try {
      runId = await api.dispatchWorkflow(repository, dispatch, { signal });
    } catch (error) {
      // Older GitHub Enterprise Server refuses the unknown key outright; nothing was dispatched, so ask again.
      if (!(dispatch.returnRunDetails && isRefusedRunDetailsFlag(error))) throw error;
      runId = await api.dispatchWorkflow(repository, { ...dispatch, returnRunDetails: false }, { signal });
    }
    progress.mayHaveStarted();
  } catch (error) {
    // A 5xx or a broken connection says nothing about whether the run started: the dispatch is never sent
    // twice (two runs), it is looked up by its correlation input when there is one.
    if (!isUndecidedPost(error)) throw error;
    progress.mayHaveStarted();
    if (!request.correlationInput) throw mayHaveStarted(request, error);
    failure = error;
  }
  if (runId !== undefined) {
    const ref: RunRef = { ...repository, runId, attempt: 1 };
    progress.created(ref);
    await waitUntilReadable(api, ref, request, settings, signal, now);
    return { ref, snapshot: firstSnapshot };
  }

  if (!request.correlationInput || !distinctId) {
    throw mayHaveActed(
      `GitHub started workflow ${request.workflow} but answered without a run id (GitHub Enterprise Server 3.20 or older?), ` +
        `and no correlationInput is configured to find the run; see the adapter README. ${doNotDispatchAgain}`,
    );
  }
  const outcome = await waitAfterAcceptance(
    async () => {
      const runs = await api.listWorkflowRuns(
        repository,
        { workflow: request.workflow, event: "workflow_dispatch", createdSince },
        { signal },
      );
      return runs.find(
        (run) => (run.display_title ?? "").includes(distinctId) || (run.name ?? "").includes(distinctId),
      );
    },
    { timeoutMs: settings.correlationTimeoutMs, initialMs: settings.correlationPollMs, signal, now },
  );
  if (outcome.found === undefined) {
    if (failure) throw mayHaveStarted(request, failure);
    throw mayHaveActed(
      `GitHub started workflow ${request.workflow} but no run showing ${request.correlationInput}=${distinctId} was found ` +
        `${describeWaitEnd(outcome, settings.correlationTimeoutMs)}; make sure the workflow's run-name includes ` +
        `inputs.${request.correlationInput}. ${doNotDispatchAgain}`,
      { cause: outcome.lastError },
    );
  }
  const found = outcome.found;
  return { ref: { ...repository, runId: found.id, attempt: found.run_attempt }, snapshot: firstSnapshot };
}

/**
 * GitHub names the new run at once, but its API may not serve it for a moment; a task must resolve on the
 * first tasks/get, so the run is read back (404 meaning "not yet") before the task is handed out. The run
 * has started by now: whatever goes wrong here is reported as such, never as "try again".
 */
async function waitUntilReadable(
  api: GithubApi,
  ref: RunRef,
  request: DispatchRequest,
  settings: DispatchSettings,
  signal: AbortSignal,
  now: () => number,
): Promise<void> {
  const outcome = await waitAfterAcceptance(
    async () => {
      await api.getRunAttempt(ref, { signal });
      return true;
    },
    { timeoutMs: settings.correlationTimeoutMs, initialMs: settings.correlationPollMs, signal, now },
  );
  if (outcome.found === undefined) {
    throw mayHaveActed(
      `GitHub started workflow ${request.workflow} as run ${String(ref.runId)}, but the run could not be read ` +
        `${describeWaitEnd(outcome, settings.correlationTimeoutMs)}; follow it with watch_run (runId ${String(ref.runId)}) and do not dispatch it again`,
      { cause: outcome.lastError },
    );
  }
}

// The server ends a start failure's message with a period of its own.
const doNotDispatchAgain = "Look at the workflow's recent runs; do not dispatch again";

function mayHaveStarted(request: DispatchRequest, cause: UpstreamError) {
  const answer = cause.httpStatus === undefined ? "no answer" : `HTTP ${cause.httpStatus}`;
  const hint = request.correlationInput
    ? ` and no run showing ${request.correlationInput} appeared`
    : "; configure correlationInput to have such runs found";
  return mayHaveActed(
    `GitHub gave ${answer} to the dispatch of workflow ${request.workflow}: the run may have started anyway${hint}. ` +
      "Look at the workflow's recent runs before dispatching it again",
    { cause },
  );
}

function isRefusedRunDetailsFlag(error: unknown): boolean {
  return (
    error instanceof UpstreamError &&
    (error.httpStatus === 400 || error.httpStatus === 422) &&
    /return_run_details/i.test(error.message)
  );
}
