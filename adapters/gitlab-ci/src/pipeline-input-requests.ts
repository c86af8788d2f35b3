import type { InputRequest } from "@jobtasks/core";
import type { Deployment, PipelineJob } from "./gitlab-response-schemas.js";

/**
 * What a pipeline in status `manual` asks of the agent: play each manual job, approve or reject each
 * deployment waiting for approval. Keys are upstream facts, unique for the life of the pipeline: a job id
 * (a replayed or retried job gets a new one), and a deployment id with the number of approvals it had
 * when asked (each approval of a multi-approval environment is a new question).
 */

export type InputRequestKey =
  | { kind: "play"; jobId: number }
  | { kind: "approve"; deploymentId: number; approvalsSoFar: number };

export function playJobKey(jobId: number): string {
  return `play-job-${jobId}`;
}

export function approveDeploymentKey(deploymentId: number, approvalsSoFar: number): string {
  return `approve-deployment-${deploymentId}-after-${approvalsSoFar}-approvals`;
}

export function parseInputRequestKey(key: string): InputRequestKey | undefined {
  const play = /^play-job-(\d+)$/.exec(key);
  if (play) return { kind: "play", jobId: Number(play[1]) };
  const approve = /^approve-deployment-(\d+)-after-(\d+)-approvals$/.exec(key);
  if (approve) return { kind: "approve", deploymentId: Number(approve[1]), approvalsSoFar: Number(approve[2]) };
  return undefined;
}

/** The requests for a pipeline's manual jobs and blocked deployments; a deployment's job is asked once, as an approval. */
export function buildInputRequests(
  manualJobs: readonly PipelineJob[],
  blockedDeployments: readonly Deployment[],
  /** The pipeline's page on GitLab, where a person can decide instead (the server's refusal quotes it). */
  pipelinePage?: string | null,
): Record<string, InputRequest> {
  const requests: Record<string, InputRequest> = {};
  const where = pipelinePage ? ` Decide on GitLab: ${pipelinePage}` : "";
  const deploymentJobs = new Set(blockedDeployments.map((deployment) => deployment.deployable?.id));
  for (const deployment of blockedDeployments) {
    const approvalsSoFar = deployment.approvals?.filter((approval) => approval.status !== "rejected").length ?? 0;
    const environment = deployment.environment?.name ?? "a protected environment";
    const job = deployment.deployable?.name ? `job '${deployment.deployable.name}'` : "a job";
    const pending = deployment.pending_approval_count
      ? ` (${deployment.pending_approval_count} more approvals needed)`
      : "";
    requests[approveDeploymentKey(deployment.id, approvalsSoFar)] = {
      method: "elicitation/create",
      params: {
        mode: "form",
        message: `The deployment of ${job} to ${environment} waits for approval${pending}. Approve it?${where}`,
        requestedSchema: {
          type: "object",
          properties: {
            approve: {
              type: "boolean",
              title: "Approve the deployment",
              description: "true approves, false rejects",
              default: false,
            },
            comment: { type: "string", title: "Comment", description: "Recorded with the decision on GitLab" },
          },
          required: ["approve"],
        },
      },
    };
  }
  for (const job of manualJobs) {
    if (job.status !== "manual" || deploymentJobs.has(job.id)) continue;
    requests[playJobKey(job.id)] = {
      method: "elicitation/create",
      params: {
        mode: "form",
        message: `The manual job '${job.name}' (stage ${job.stage}) waits to be played. Play it?${where}`,
        requestedSchema: {
          type: "object",
          properties: {
            play: {
              type: "boolean",
              title: "Play the job",
              description: "true starts the job; false leaves it waiting",
              default: false,
            },
          },
          required: ["play"],
        },
      },
    };
  }
  return requests;
}
