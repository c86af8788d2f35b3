import {
  AnswersPartlySettledError,
  InvalidToolInputError,
  UpstreamError,
  type AdapterContext,
  type ElicitationResponse,
  type RespondOutcome,
} from "@jobtasks/core";
import type { GitlabCiApi } from "./gitlab-ci-api.js";
import { parseInputRequestKey, type InputRequestKey } from "./pipeline-input-requests.js";
import type { PipelineRef } from "./pipeline-ref.js";

/**
 * GitLab answers 400 for every refusal of a play or an approval: a job or deployment that no longer waits
 * (someone answered first) and a caller without the right alike. Only its words tell them apart: "Unplayable
 * Job" for a job already played, "not waiting for approvals" or "not blocked" for a deployment decided.
 * A 409 is a conflict with a decision already taken. Every other refusal is the caller's to hear.
 */
function alreadyDecided(error: UpstreamError): boolean {
  if (error.httpStatus === 409) return true;
  return error.httpStatus === 400 && /unplayable|not waiting for approvals?|not blocked/i.test(error.message);
}

/**
 * Deliver the agent's answers: play manual jobs, approve or reject deployments. Every answer is read
 * before any is acted on, so a batch with an unreadable answer changes nothing on GitLab. Resolves to the
 * answers that leave their question open (a dismissed form, a manual job not played: it goes on waiting),
 * so that a later answer to the same question is still delivered. A refusal is thrown saying why; after
 * GitLab took an earlier answer of the batch, inside an AnswersPartlySettledError naming those it took.
 */
export async function respondToPipeline(
  api: GitlabCiApi,
  ref: PipelineRef,
  responses: Record<string, ElicitationResponse>,
  context: AdapterContext,
): Promise<RespondOutcome> {
  const actions: Array<{ keyText: string; key: InputRequestKey; approve: boolean; comment?: string }> = [];
  const leftOpen: string[] = [];
  for (const [keyText, response] of Object.entries(responses)) {
    const key = parseInputRequestKey(keyText);
    // A dismissed form (cancel) leaves the job waiting; the request stays outstanding.
    if (!key || response.action === "cancel") {
      leftOpen.push(keyText);
      continue;
    }
    if (key.kind === "play") {
      // Declining a play leaves the job waiting: a manual job has no "reject" on GitLab.
      if (response.action === "decline") {
        leftOpen.push(keyText);
        continue;
      }
      const play = response.content?.play;
      if (typeof play !== "boolean") throw new InvalidToolInputError(`${keyText}.play`, "must be true or false");
      if (play) actions.push({ keyText, key, approve: true });
      else leftOpen.push(keyText);
      continue;
    }
    // An approval cannot be undone: a non-boolean is refused rather than guessed. Decline rejects.
    const approve = response.action === "accept" ? response.content?.approve : false;
    if (typeof approve !== "boolean") throw new InvalidToolInputError(`${keyText}.approve`, "must be true or false");
    const comment = response.content?.comment;
    actions.push({
      keyText,
      key,
      approve,
      ...(typeof comment === "string" && comment.trim() !== "" ? { comment } : {}),
    });
  }
  // Keys GitLab took (or had already decided): a failure after them must not leave them unanswered.
  const settled: string[] = [];
  for (const action of actions) {
    try {
      if (action.key.kind === "play") {
        await api.playJob(ref.project, action.key.jobId, { signal: context.signal });
      } else {
        const comment = action.comment ?? (action.approve ? "Approved through jobtasks" : "Rejected through jobtasks");
        await api.reviewDeployment(
          ref.project,
          action.key.deploymentId,
          { status: action.approve ? "approved" : "rejected", comment },
          { signal: context.signal },
        );
      }
    } catch (error) {
      if (error instanceof UpstreamError && alreadyDecided(error)) {
        context.logger.info(
          { pipelineId: ref.pipelineId, httpStatus: error.httpStatus },
          "the job or deployment no longer waits",
        );
        settled.push(action.keyText);
        continue;
      }
      const failure = reportable(action.key, error);
      throw settled.length > 0 ? new AnswersPartlySettledError(settled, failure) : failure;
    }
    settled.push(action.keyText);
  }
  return { leftOpen };
}

/** An outage (5xx, unreachable) or a fault of ours as it is: it refused nothing. A refusal says why. */
function reportable(key: InputRequestKey, error: unknown): unknown {
  if (!(error instanceof UpstreamError) || error.httpStatus === undefined || error.httpStatus >= 500) return error;
  return refusal(key, error);
}

/**
 * GitLab's refusal, saying what was refused and why in GitLab's words; never the request's path, and no
 * link GitLab's words may hold (they name the host).
 */
function refusal(key: InputRequestKey, error: UpstreamError): UpstreamError {
  const what = key.kind === "play" ? "to play the manual job" : "the approval of the deployment";
  const why = error.message.replace(/^GitLab refused POST: /, "").replace(/\bhttps?:\/\/\S+/gi, "(a link)");
  return new UpstreamError(`GitLab refused ${what}: ${why}`, {
    httpStatus: error.httpStatus,
    isRetryable: error.isRetryable,
    ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
    cause: error,
  });
}
