import type { PipelineJob } from "./gitlab-response-schemas.js";
import { isActiveJob } from "./pipeline-run.js";

const finishedStatuses = new Set(["success", "failed", "canceled", "skipped"]);

/**
 * A one-line message for a pipeline that is still working, from its current jobs (oldest first): the stage
 * and job running, e.g. "test: rspec (2 of 5 jobs done)"; for a pipeline not running (pending, canceling,
 * ...) GitLab's state first, then the next job, e.g. "pending: waiting for a runner (test: rspec; 2 of 5
 * jobs done)". Without jobs, GitLab's state alone.
 */
export function describePipelineProgress(
  pipelineStatus: string,
  stateMessage: string,
  jobs: readonly PipelineJob[],
): string {
  if (jobs.length === 0) return stateMessage;
  const done = jobs.filter((job) => finishedStatuses.has(job.status)).length;
  const tally = `${done} of ${jobs.length} job${jobs.length === 1 ? "" : "s"} done`;
  const running = jobs.filter((job) => job.status === "running");
  if (pipelineStatus === "running" && running.length > 0) {
    const first = running[0]!;
    const more = running.length > 1 ? ` and ${running.length - 1} more` : "";
    return `${first.stage}: ${first.name}${more} (${tally})`;
  }
  const next = running[0] ?? jobs.find(isActiveJob);
  return `${stateMessage} (${next ? `${next.stage}: ${next.name}; ` : ""}${tally})`;
}
