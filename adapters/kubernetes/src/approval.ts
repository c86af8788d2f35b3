import {
  InvalidToolInputError,
  type ElicitationResponse,
  type InputRequest,
  type RespondOutcome,
} from "@jobtasks/core";
import type { V1Job } from "@kubernetes/client-node";
import { annotations, pointerTo } from "./job-annotations.js";
import type { JobRef } from "./job-ref.js";
import type { KubernetesApi } from "./kubernetes-api.js";

/**
 * A suspended start's question: the Job was created with spec.suspend true and the annotation
 * jobtasks.io/approval "pending"; approving resumes it, rejecting deletes it. The key comes from the Job's
 * uid, so every replica asks the same question, and it is never asked again once decided (the annotation
 * says "approved" or "rejected" from then on).
 */

export const approvalKeyOf = (uid: string) => `start-${uid}`;

/** The approval question of a Job, from the tool's configured question (kept in an annotation-free way: per tool). */
export function approvalRequest(job: V1Job, question: string): Record<string, InputRequest> {
  const uid = job.metadata?.uid ?? "";
  return {
    [approvalKeyOf(uid)]: {
      method: "elicitation/create",
      params: {
        mode: "form",
        message: `${question} (Job ${job.metadata?.namespace}/${job.metadata?.name}, created suspended)`,
        requestedSchema: {
          type: "object",
          properties: {
            approve: {
              type: "boolean",
              title: "Run the Job",
              description: "true resumes the suspended Job; false deletes it",
              default: false,
            },
          },
          required: ["approve"],
        },
      },
    },
  };
}

/**
 * Deliver the answer: approve → resume (suspend false) and mark approved; reject or decline → mark rejected,
 * then delete the Job with its pods. A dismissed form (`cancel`) leaves the question open.
 */
export async function respondToApproval(
  api: KubernetesApi,
  ref: JobRef,
  responses: Record<string, ElicitationResponse>,
  signal: AbortSignal,
  onRejected: (uid: string) => void,
): Promise<RespondOutcome | void> {
  const key = approvalKeyOf(ref.uid);
  const response = responses[key];
  if (!response || response.action === "cancel") return;
  const approve = response.action === "accept" ? response.content?.["approve"] : false;
  if (typeof approve !== "boolean") throw new InvalidToolInputError(`${key}.approve`, "must be true or false");
  if (approve) {
    await api.patchJob(
      ref,
      [
        { op: "add", path: pointerTo(annotations.approval), value: "approved" },
        { op: "replace", path: "/spec/suspend", value: false },
      ],
      signal,
    );
    return;
  }
  onRejected(ref.uid);
  // Marked first, so that every replica reads the rejection from the Job's last state once it is gone.
  await api.patchJob(ref, [{ op: "add", path: pointerTo(annotations.approval), value: "rejected" }], signal);
  await api.deleteJob(ref, signal);
}
