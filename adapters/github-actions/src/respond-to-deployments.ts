import { InvalidToolInputError, UpstreamError, type AdapterContext, type ElicitationResponse } from "@jobtasks/core";
import type { GithubApi } from "./github-actions-api.js";
import { parseDeploymentRequestKey, type RunRef } from "./run-ref.js";

/**
 * Deliver the agent's answers to approval requests: approve or reject the deployments they name, one
 * review POST each, never sent twice.
 */
export async function respondToDeployments(
  api: GithubApi,
  ref: RunRef,
  responses: Record<string, ElicitationResponse>,
  context: AdapterContext,
): Promise<void> {
  // Every answer is read before any is acted on, so a batch with an unreadable answer reviews nothing.
  const reviews = [];
  for (const [key, response] of Object.entries(responses)) {
    const parsed = parseDeploymentRequestKey(ref, key);
    // A dismissed form (cancel) leaves the deployment waiting; the request stays outstanding.
    if (!parsed || response.action === "cancel") continue;
    // A review cannot be undone: an accept whose approve is not a boolean is refused (-32602, the request
    // stays open) rather than guessed, never posted as a rejection. Decline rejects.
    const approve = response.action === "accept" ? response.content?.approve : false;
    if (typeof approve !== "boolean") throw new InvalidToolInputError(`${key}.approve`, "must be true or false");
    reviews.push({ parsed, response, approve });
  }
  for (const { parsed, response, approve } of reviews) {
    const comment =
      typeof response.content?.comment === "string" && response.content.comment.trim() !== ""
        ? response.content.comment
        : approve
          ? "Approved through jobtasks"
          : "Rejected through jobtasks";
    try {
      await api.reviewPendingDeployments(
        ref,
        { environmentIds: [parsed.environmentId], state: approve ? "approved" : "rejected", comment },
        { signal: context.signal },
      );
    } catch (error) {
      // 422: the deployment is no longer waiting (someone else answered first); the answer is moot.
      if (error instanceof UpstreamError && error.httpStatus === 422) {
        context.logger.info({ runId: ref.runId, environmentId: parsed.environmentId }, "deployment no longer pending");
        continue;
      }
      throw error;
    }
  }
}
