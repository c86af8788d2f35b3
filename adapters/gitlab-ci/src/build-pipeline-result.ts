import type { CallToolResult } from "@jobtasks/core";
import type { Pipeline, PipelineJob } from "./gitlab-response-schemas.js";
import type { PipelineResult } from "./pipeline-result-schema.js";
import type { TraceTail } from "./tail-job-trace.js";

/**
 * The result of a finished pipeline, as the agent reads it: what ran on which commit, for a failed one the
 * failed jobs and stages with the end of each job's trace, and the artifacts every job kept.
 */

/** Failed jobs that failed the pipeline first (allowed failures after), in pipeline order. */
export function failedJobsOf(jobs: readonly PipelineJob[]): PipelineJob[] {
  const failed = jobs.filter((job) => job.status === "failed");
  return [...failed.filter((job) => !job.allow_failure), ...failed.filter((job) => job.allow_failure)];
}

export function buildPipelineResult(
  pipeline: Pipeline,
  jobs: readonly PipelineJob[],
  tails: readonly TraceTail[],
  isError: boolean,
  /** Said after the summary line, e.g. that the pipeline has been retried since this run. */
  note?: string,
): CallToolResult {
  const tailsByJob = new Map(tails.map((tail) => [tail.jobId, tail]));
  const failedJobs = failedJobsOf(jobs).map((job) => {
    const tail = tailsByJob.get(job.id);
    return {
      id: job.id,
      name: job.name,
      stage: job.stage,
      failureReason: job.failure_reason ?? null,
      allowFailure: job.allow_failure ?? false,
      ...(tail && tail.text !== "" ? { traceTail: tail.text } : {}),
      ...(tail?.note ? { traceNote: tail.note } : {}),
    };
  });
  const result: PipelineResult = {
    pipelineId: pipeline.id,
    iid: pipeline.iid ?? null,
    status: pipeline.status,
    ref: pipeline.ref ?? null,
    sha: pipeline.sha ?? null,
    webUrl: pipeline.web_url ?? null,
    durationSeconds: pipeline.duration ?? null,
    failedStages: [...new Set(failedJobs.filter((job) => !job.allowFailure).map((job) => job.stage))],
    failedJobs,
    // The trace is an artifact too on GitLab; it is shown above, not listed again.
    artifacts: jobs.flatMap((job) =>
      (job.artifacts ?? [])
        .filter((artifact) => artifact.file_type !== "trace")
        .map((artifact) => ({
          jobId: job.id,
          jobName: job.name,
          fileType: artifact.file_type,
          filename: artifact.filename ?? null,
          sizeInBytes: artifact.size ?? null,
        })),
    ),
  };
  return {
    content: [{ type: "text", text: describeResult(result, note) }],
    structuredContent: { ...result },
    ...(isError ? { isError: true } : {}),
  };
}

function describeResult(result: PipelineResult, note: string | undefined): string {
  const commit = result.sha ? ` (${result.sha.slice(0, 12)})` : "";
  const number = result.iid !== null ? ` #${result.iid}` : "";
  const lines = [
    `Pipeline${number} (id ${result.pipelineId}) ${result.status}${result.ref ? ` on ${result.ref}` : ""}${commit}.${result.webUrl ? ` ${result.webUrl}` : ""}`,
  ];
  if (note) lines.push(`Note: ${note}.`);
  if (result.failedStages.length > 0) lines.push(`Failed stages: ${result.failedStages.join(", ")}.`);
  for (const job of result.failedJobs) {
    const reason = job.failureReason ? `, ${job.failureReason}` : "";
    lines.push(`Failed job '${job.name}' (stage ${job.stage}${reason}${job.allowFailure ? ", allowed to fail" : ""}):`);
    if (job.traceTail) lines.push(job.traceTail);
    if (job.traceNote) lines.push(`(${job.traceNote})`);
  }
  if (result.artifacts.length > 0) {
    lines.push(
      `Artifacts: ${result.artifacts.map((artifact) => `${artifact.jobName}: ${artifact.filename ?? artifact.fileType}${artifact.sizeInBytes !== null ? ` (${artifact.sizeInBytes} bytes)` : ""}`).join("; ")}`,
    );
  }
  return lines.join("\n");
}
