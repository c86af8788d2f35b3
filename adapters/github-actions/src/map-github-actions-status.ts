/**
 * GitHub's run status and conclusion, in the extension's terms. Pure, and open: any value GitHub adds
 * later lands in a non-terminal branch with the raw value in the message, never in a terminal one.
 */
export type RunPhase =
  | { phase: "working"; message: string }
  /** Status "waiting": the pending deployments decide between input_required and working. */
  | { phase: "waiting" }
  | { phase: "completed"; isError: boolean }
  | { phase: "cancelled" };

const successfulConclusions = new Set(["success", "neutral", "skipped"]);
const failedConclusions = new Set(["failure", "timed_out", "startup_failure", "action_required", "stale"]);

export function mapGithubActionsStatus(status: string | null, conclusion: string | null): RunPhase {
  switch (status) {
    case "requested":
      return { phase: "working", message: "requested: GitHub is preparing the run" };
    case "queued":
      return { phase: "working", message: "queued" };
    case "pending":
      return { phase: "working", message: "waiting for concurrency group" };
    case "in_progress":
      return { phase: "working", message: "in progress" };
    case "waiting":
      return { phase: "waiting" };
    case "completed":
      if (conclusion !== null && successfulConclusions.has(conclusion)) return { phase: "completed", isError: false };
      if (conclusion !== null && failedConclusions.has(conclusion)) return { phase: "completed", isError: true };
      if (conclusion === "cancelled") return { phase: "cancelled" };
      return {
        phase: "working",
        message: `GitHub reports the run completed with conclusion '${conclusion ?? "none"}', which this adapter does not know; waiting for a known one`,
      };
    default:
      return {
        phase: "working",
        message: `GitHub reports status '${status ?? "none"}', which this adapter does not know`,
      };
  }
}

/** The raw value kept alongside the unified status: "in_progress", "completed/failure". */
export function rawRunStatus(status: string | null, conclusion: string | null): string {
  const base = status ?? "unknown";
  return conclusion ? `${base}/${conclusion}` : base;
}
