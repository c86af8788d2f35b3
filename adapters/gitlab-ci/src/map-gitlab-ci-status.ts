/**
 * GitLab's pipeline status in the extension's terms. Pure, and open: a status GitLab adds later lands in
 * the working branch with the raw value in the message, never in a terminal one.
 */
export type PipelinePhase =
  | { phase: "working"; message: string }
  /** Status "manual": the manual jobs and blocked deployments decide between input_required and working. */
  | { phase: "manual" }
  | { phase: "completed"; isError: boolean; message: string }
  | { phase: "cancelled" };

export function mapGitlabCiStatus(status: string): PipelinePhase {
  switch (status) {
    case "created":
      return { phase: "working", message: "created: GitLab is creating the jobs" };
    case "waiting_for_resource":
      return { phase: "working", message: "waiting for a resource (another pipeline holds it)" };
    case "preparing":
      return { phase: "working", message: "preparing the runner environment" };
    case "waiting_for_callback":
      return { phase: "working", message: "waiting for an external callback" };
    case "pending":
      return { phase: "working", message: "pending: waiting for a runner" };
    case "running":
      return { phase: "working", message: "running" };
    case "scheduled":
      return { phase: "working", message: "scheduled: a delayed job will start later" };
    case "canceling":
      // A cancel was requested and jobs are stopping; the pipeline is not cancelled until GitLab says so.
      return { phase: "working", message: "cancel requested: GitLab is stopping the jobs" };
    case "manual":
      return { phase: "manual" };
    case "success":
      return { phase: "completed", isError: false, message: "the pipeline succeeded" };
    case "skipped":
      return { phase: "completed", isError: false, message: "the pipeline was skipped: no job ran" };
    case "failed":
      return { phase: "completed", isError: true, message: "the pipeline failed" };
    case "canceled":
      return { phase: "cancelled" };
    default:
      return { phase: "working", message: `GitLab reports status '${status}', which this adapter does not know` };
  }
}
