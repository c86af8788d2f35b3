import type { ElicitationFormRequest, ElicitationResponse } from "@jobtasks/core";
import type { DemoJobResponse } from "./demo-job-response.js";

/**
 * The deploy approval as an MCP form elicitation, and the reading of the answer. The request key is the
 * API's approval id: fresh for every gate, so unique for the life of the job, and known to every replica.
 */

export type PendingApproval = NonNullable<DemoJobResponse["approval"]>;

/** What the agent sees as statusMessage and as the form's message. */
export function approvalQuestion(job: DemoJobResponse): string {
  return `Approve the deploy of pipeline ${job.name}? (step ${job.currentStep}/${job.totalSteps} done)`;
}

export function buildApprovalRequest(job: DemoJobResponse, approval: PendingApproval): ElicitationFormRequest {
  return {
    method: "elicitation/create",
    params: {
      mode: "form",
      message: `${approvalQuestion(job)} The pipeline asks: ${approval.message}`,
      requestedSchema: {
        type: "object",
        properties: {
          approve: {
            type: "boolean",
            title: "Approve the deploy",
            // Forms start from the default: rejecting then needs no toggling, approving one deliberate tick.
            default: false,
            description: "true lets the pipeline run its remaining steps; false rejects the deploy and ends the job.",
          },
          comment: {
            type: "string",
            title: "Comment",
            description: "Optional note recorded with the decision (shown in the job's result when rejected).",
            maxLength: 2000,
          },
        },
        required: ["approve"],
      },
    },
  };
}

export interface ApprovalDecision {
  approve: boolean;
  comment?: string;
}

/**
 * Only an accepted form with approve === true approves. Anything else (approve false or missing, a
 * declined or dismissed form) rejects: a deploy must never go ahead on an unclear answer.
 */
export function readApprovalDecision(response: ElicitationResponse): ApprovalDecision {
  const content = response.content ?? {};
  const comment =
    typeof content.comment === "string" && content.comment.trim() !== "" ? content.comment.slice(0, 2000) : undefined;
  if (response.action === "accept") {
    return comment === undefined
      ? { approve: content.approve === true }
      : { approve: content.approve === true, comment };
  }
  const verb = response.action === "decline" ? "declined" : "dismissed";
  return { approve: false, comment: comment ?? `The approval request was ${verb} in the client` };
}
