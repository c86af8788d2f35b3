import type { ElicitationFormRequest } from "@jobtasks/core";
import type { DeploymentReviewer, PendingDeployment, RunReview } from "./github-response-schemas.js";
import { deploymentRequestKey, type RunRef } from "./run-ref.js";

/**
 * A run in status "waiting" as the agent should see it: one approval form per environment this token may
 * approve, and, for the rest, a message naming who or what the run waits for.
 */
export interface WaitingDescription {
  inputRequests: Record<string, ElicitationFormRequest>;
  message: string;
}

/**
 * How many reviews each environment has in the run's review history, keyed by the environment id's
 * decimal string (ids are int64, so they are compared as text, never as rounded numbers). Entries in
 * state "pending" are left out: they are no answer, and counting them could move an open request's key.
 */
export function countReviewsByEnvironment(reviews: ReadonlyArray<RunReview>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const review of reviews) {
    if (review.state === "pending") continue;
    for (const environment of review.environments) {
      const id = String(environment.id);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
  }
  return counts;
}

/** Whether any environment waits for this token's answer (then the review history numbers its key). */
export function needsReviewHistory(deployments: ReadonlyArray<PendingDeployment>): boolean {
  return deployments.some((deployment) => deployment.current_user_can_approve);
}

export function describePendingDeployments(
  ref: RunRef,
  workflowName: string,
  deployments: ReadonlyArray<PendingDeployment>,
  reviewsByEnvironment: ReadonlyMap<string, number>,
  now: number = Date.now(),
  /** The run's page on GitHub, where a person can review the deployment instead. */
  reviewPage?: string,
): WaitingDescription {
  const inputRequests: Record<string, ElicitationFormRequest> = {};
  const parts: string[] = [];
  for (const deployment of deployments) {
    const environment = deployment.environment.name;
    if (deployment.current_user_can_approve) {
      inputRequests[
        deploymentRequestKey(
          ref,
          deployment.environment.id,
          reviewsByEnvironment.get(String(deployment.environment.id)) ?? 0,
        )
      ] = approvalForm(ref, workflowName, environment, reviewPage);
      parts.push(`'${environment}' waits for your approval`);
      continue;
    }
    const timer = describeWaitTimer(deployment, now);
    const reviewers = deployment.reviewers.map(describeReviewer).filter((name) => name !== "");
    if (timer) parts.push(`'${environment}' waits for its wait timer (${timer})`);
    else if (reviewers.length > 0) parts.push(`'${environment}' waits for a review by ${reviewers.join(", ")}`);
    else parts.push(`'${environment}' waits for a deployment protection rule`);
  }
  const message = parts.length === 0 ? "waiting for a deployment protection rule" : `waiting: ${parts.join("; ")}`;
  return { inputRequests, message };
}

function approvalForm(
  ref: RunRef,
  workflowName: string,
  environment: string,
  reviewPage: string | undefined,
): ElicitationFormRequest {
  // The page is where a person approves when the caller may not (the server's refusal quotes it).
  const where = reviewPage ? ` Review it on GitHub: ${reviewPage}` : "";
  return {
    method: "elicitation/create",
    params: {
      mode: "form",
      message: `Workflow '${workflowName}' (${ref.owner}/${ref.repo} run ${ref.runId}, attempt ${ref.attempt}) waits for approval to deploy to '${environment}'.${where}`,
      requestedSchema: {
        type: "object",
        properties: {
          approve: {
            type: "boolean",
            title: `Approve the deployment to ${environment}`,
            // Forms start from the default: rejecting then needs no toggling, approving one deliberate tick.
            default: false,
            description: "true approves, false rejects (a rejected deployment ends the run as failed)",
          },
          comment: { type: "string", title: "Comment", description: "Recorded on the run with the review" },
        },
        required: ["approve"],
      },
    },
  };
}

function describeReviewer(reviewer: DeploymentReviewer): string {
  const who = reviewer.reviewer;
  if (!who) return "";
  if (reviewer.type === "Team") return `team ${who.slug ?? who.name ?? "(unnamed)"}`;
  return who.login ? `@${who.login}` : (who.name ?? "");
}

function describeWaitTimer(deployment: PendingDeployment, now: number): string | undefined {
  if (!deployment.wait_timer || !deployment.wait_timer_started_at) return undefined;
  const endsAt = Date.parse(deployment.wait_timer_started_at) + deployment.wait_timer * 60_000;
  if (Number.isNaN(endsAt) || endsAt <= now) return undefined;
  return `${deployment.wait_timer} min, ends ${new Date(endsAt).toISOString()}`;
}
