import { InvalidToolInputError, UpstreamError, type AdapterContext, type ElicitationResponse } from "@jobtasks/core";
import type { GitlabCiApi } from "./gitlab-ci-api.js";
import { parseInputRequestKey, type InputRequestKey } from "./pipeline-input-requests.js";
import type { PipelineRef } from "./pipeline-ref.js";

/** Statuses with which GitLab says the job or deployment is no longer waiting: someone answered first. */
const alreadyAnsweredStatuses = new Set([400, 409, 422]);

/**
 * Deliver the agent's answers: play manual jobs, approve or reject deployments. Every answer is read
 * before any is acted on, so a batch with an unreadable answer changes nothing on GitLab.
 */
export async function respondToPipeline(
  api: GitlabCiApi,
  ref: PipelineRef,
  responses: Record<string, ElicitationResponse>,
  context: AdapterContext,
): Promise<void> {
  const actions: Array<{ key: InputRequestKey; approve: boolean; comment?: string }> = [];
  for (const [keyText, response] of Object.entries(responses)) {
    const key = parseInputRequestKey(keyText);
    // A dismissed form (cancel) leaves the job waiting; the request stays outstanding.
    if (!key || response.action === "cancel") continue;
    if (key.kind === "play") {
      // Declining a play leaves the job waiting: a manual job has no "reject" on GitLab.
      if (response.action === "decline") continue;
      const play = response.content?.play;
      if (typeof play !== "boolean") throw new InvalidToolInputError(`${keyText}.play`, "must be true or false");
      if (play) actions.push({ key, approve: true });
      continue;
    }
    // An approval cannot be undone: a non-boolean is refused rather than guessed. Decline rejects.
    const approve = response.action === "accept" ? response.content?.approve : false;
    if (typeof approve !== "boolean") throw new InvalidToolInputError(`${keyText}.approve`, "must be true or false");
    const comment = response.content?.comment;
    actions.push({ key, approve, ...(typeof comment === "string" && comment.trim() !== "" ? { comment } : {}) });
  }
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
      if (
        error instanceof UpstreamError &&
        error.httpStatus !== undefined &&
        alreadyAnsweredStatuses.has(error.httpStatus)
      ) {
        context.logger.info(
          { pipelineId: ref.pipelineId, httpStatus: error.httpStatus },
          "the job or deployment no longer waits",
        );
        continue;
      }
      throw error;
    }
  }
}
