import type { ElicitationFormRequest } from "@jobtasks/core";
import type { DeploymentReviewer, PendingDeployment, WorkflowJob } from "./github-response-schemas.js";
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
 * The job id that makes approval keys unique across sequential waits on one environment: the smallest id
 * of the attempt's jobs in status "waiting" (held by a deployment protection rule). GitHub does not say
 * which environment a waiting job is for, so every environment's key of one snapshot gets the same id;
 * a second wait on an environment comes from another job, hence another key, while jobs waiting at the
 * same time on one environment are approved by one review anyway. Undefined when no job shows "waiting"
 * yet (the jobs list can lag behind the run's status).
 */
export function firstWaitingJobId(jobs: ReadonlyArray<Pick<WorkflowJob, "id" | "status">>): number | string | undefined {
  let first: number | string | undefined;
  for (const job of jobs) {
    if (job.status !== "waiting") continue;
    // Ids are int64 (a decimal string past 2^53): compare them as bigints.
    if (first === undefined || BigInt(job.id) < BigInt(first)) first = job.id;
  }
  return first;
}

export function describePendingDeployments(
  ref: RunRef,
  workflowName: string,
  deployments: ReadonlyArray<PendingDeployment>,
  waitingJobId: number | string | undefined,
  now: number = Date.now(),
): WaitingDescription {
  const inputRequests: Record<string, ElicitationFormRequest> = {};
  const parts: string[] = [];
  for (const deployment of deployments) {
    const environment = deployment.environment.name;
    if (deployment.current_user_can_approve) {
      inputRequests[deploymentRequestKey(ref, deployment.environment.id, waitingJobId)] = approvalForm(ref, workflowName, environment);
      parts.push(`'${environment}' waits for your approval`);
      continue;
    }
    const timer = describeWaitTimer(deployment, now);
    const reviewers = deployment.reviewers.map(describeReviewer).filter((name) => name !== "");
    if (timer) parts.push(`'${environment}' waits for its wait timer (${timer})`);
    else if (reviewers.length > 0) parts.push(`'${environment}' waits for a review by ${reviewers.join(", ")}`);
    else parts.push(`'${environment}' waits for a deployment protection rule`);
  }
  const message =
    parts.length === 0
      ? "waiting for a deployment protection rule"
      : `waiting: ${parts.join("; ")}`;
  return { inputRequests, message };
}

function approvalForm(ref: RunRef, workflowName: string, environment: string): ElicitationFormRequest {
  return {
    method: "elicitation/create",
    params: {
      mode: "form",
      message: `Workflow '${workflowName}' (${ref.owner}/${ref.repo} run ${ref.runId}, attempt ${ref.attempt}) waits for approval to deploy to '${environment}'.`,
      requestedSchema: {
        type: "object",
        properties: {
          approve: {
            type: "boolean",
            title: `Approve the deployment to ${environment}`,
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
