import type { CallToolResult } from "@jobtasks/core";
import type { Artifact, WorkflowJob, WorkflowRun } from "./github-response-schemas.js";
import type { FailedStep, RunResult } from "./run-result-schema.js";
import type { RunRef } from "./run-ref.js";

/**
 * The result of a finished attempt, as text for the model and as structured content. Artifacts are those
 * created while the attempt ran: GitHub lists them per run, so without the upper bound a later re-run's
 * uploads would change this result, and without the lower bound a re-run's result would list the earlier
 * attempts' uploads (also those of jobs a failed-jobs re-run did not repeat).
 */
export function buildRunResult(
  ref: RunRef,
  run: WorkflowRun,
  jobs: ReadonlyArray<WorkflowJob>,
  artifacts: ReadonlyArray<Artifact>,
  failedSteps: ReadonlyArray<FailedStep>,
  isError: boolean,
): CallToolResult {
  const finishedAt = Date.parse(run.updated_at);
  const startedAt = Date.parse(run.run_started_at ?? run.created_at);
  const durationSeconds =
    Number.isNaN(finishedAt) || Number.isNaN(startedAt)
      ? null
      : Math.max(0, Math.round((finishedAt - startedAt) / 1000));
  const structured: RunResult = {
    repository: `${ref.owner}/${ref.repo}`,
    runId: ref.runId,
    attempt: ref.attempt,
    workflow: run.name ?? "workflow",
    conclusion: run.conclusion ?? "unknown",
    htmlUrl: run.html_url,
    headBranch: run.head_branch,
    headSha: run.head_sha,
    event: run.event,
    durationSeconds,
    jobs: jobs.map((job) => ({ name: job.name, conclusion: job.conclusion, htmlUrl: job.html_url })),
    failedSteps: [...failedSteps],
    artifacts: artifacts
      .filter((artifact) => createdDuring(artifact, startedAt, finishedAt))
      .map((artifact) => ({
        name: artifact.name,
        sizeInBytes: artifact.size_in_bytes,
        url: artifact.archive_download_url,
        expiresAt: artifact.expires_at,
      })),
  };
  return {
    content: [{ type: "text", text: describeResult(structured) }],
    structuredContent: structured,
    isError,
  };
}

function createdDuring(artifact: Artifact, startedAt: number, finishedAt: number): boolean {
  const createdAt = artifact.created_at ? Date.parse(artifact.created_at) : Number.NaN;
  if (Number.isNaN(createdAt)) return true;
  return (Number.isNaN(startedAt) || createdAt >= startedAt) && (Number.isNaN(finishedAt) || createdAt <= finishedAt);
}

function describeResult(result: RunResult): string {
  const lines = [
    `Workflow '${result.workflow}' (${result.repository} run ${result.runId}, attempt ${result.attempt}) ` +
      `concluded ${result.conclusion}${result.durationSeconds === null ? "" : ` after ${formatSeconds(result.durationSeconds)}`}.`,
    `Commit ${result.headSha.slice(0, 12)}${result.headBranch ? ` on ${result.headBranch}` : ""} (${result.event}). ${result.htmlUrl}`,
  ];
  if (result.jobs.length > 0) {
    lines.push(`Jobs: ${result.jobs.map((job) => `${job.name} ${job.conclusion ?? "unfinished"}`).join("; ")}`);
  }
  for (const step of result.failedSteps) {
    lines.push("");
    lines.push(
      `Failed: ${step.job}${step.step ? ` > ${step.step}` : ""} (${step.conclusion ?? "failure"})` +
        (step.logTruncated ? ", log end:" : ", log:"),
    );
    lines.push(step.logTail === "" ? "(no log lines)" : step.logTail);
  }
  if (result.artifacts.length > 0) {
    lines.push("");
    lines.push(
      `Artifacts: ${result.artifacts.map((artifact) => `${artifact.name} (${formatBytes(artifact.sizeInBytes)}) ${artifact.url}`).join("; ")}`,
    );
  }
  return lines.join("\n");
}

function formatSeconds(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  return minutes === 0 ? `${seconds}s` : `${minutes}m ${seconds % 60}s`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
