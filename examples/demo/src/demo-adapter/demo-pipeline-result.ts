import { z } from "@jobtasks/core";
import type { CallToolResult } from "@jobtasks/core";
import type { DemoJobResponse } from "./demo-job-response.js";

/** The result of a finished demo pipeline, as text for the agent and as structured content for programs. */

export const demoPipelineOutputSchema = z.object({
  status: z.string().describe("The demo API's final job status: succeeded, failed or rejected."),
  name: z.string().describe("The pipeline's name."),
  steps: z.array(z.object({ name: z.string(), status: z.string() })).describe("Every step with its final status."),
  durationMs: z.number().describe("Time from queueing to the end of the job, in milliseconds."),
  failedStep: z.string().optional().describe("The step that failed, when the pipeline failed."),
  logExcerpt: z.array(z.string()).optional().describe("The last log lines, when the pipeline failed."),
  approvalComment: z.string().optional().describe("The reviewer's comment, when the deploy approval was rejected."),
});

export type DemoPipelineOutput = z.output<typeof demoPipelineOutputSchema>;

/** Enough context to see why a step failed, small enough for an agent's context window. */
const excerptLines = 20;
const excerptLineLength = 300;

function formatDuration(durationMs: number): string {
  if (durationMs < 1000) return `${durationMs} ms`;
  if (durationMs < 60_000) return `${(durationMs / 1000).toFixed(1)} s`;
  return `${Math.floor(durationMs / 60_000)} min ${Math.round((durationMs % 60_000) / 1000)} s`;
}

function durationOf(job: DemoJobResponse): number {
  if (job.durationMs !== undefined) return job.durationMs;
  const end = Date.parse(job.finishedAt ?? job.updatedAt ?? "");
  const start = Date.parse(job.createdAt ?? "");
  return Number.isNaN(end) || Number.isNaN(start) ? 0 : Math.max(0, end - start);
}

function baseOutput(job: DemoJobResponse): DemoPipelineOutput {
  return {
    status: job.status,
    name: job.name,
    steps: job.steps.map((step) => ({ name: step.name, status: step.status })),
    durationMs: durationOf(job),
  };
}

// Lines are cut without regard for a credential inside them: the core's redaction removes what is left of one.
function logExcerpt(job: DemoJobResponse): string[] {
  return job.logs
    .slice(-excerptLines)
    .map((line) => (line.length > excerptLineLength ? `${line.slice(0, excerptLineLength)}…` : line));
}

export function succeededResult(job: DemoJobResponse): CallToolResult {
  const output = baseOutput(job);
  const stepNames = output.steps.map((step) => step.name).join(", ");
  const text = `Pipeline ${job.name} succeeded: ${output.steps.length}/${job.totalSteps} steps (${stepNames}) in ${formatDuration(output.durationMs)}.`;
  return { content: [{ type: "text", text }], structuredContent: output, isError: false };
}

export function failedResult(job: DemoJobResponse): CallToolResult {
  const failed = job.steps.find((step) => step.status === "failed");
  const lines = logExcerpt(job);
  const output: DemoPipelineOutput = { ...baseOutput(job), logExcerpt: lines };
  if (failed) output.failedStep = failed.name;
  const where = failed ? ` at step ${failed.number}/${job.totalSteps} (${failed.name})` : "";
  const text = `Pipeline ${job.name} failed${where} after ${formatDuration(output.durationMs)}.\n\nLast log lines:\n${lines.join("\n")}`;
  return { content: [{ type: "text", text }], structuredContent: output, isError: true };
}

export function rejectedResult(job: DemoJobResponse): CallToolResult {
  const comment = job.approval?.comment;
  const output: DemoPipelineOutput = { ...baseOutput(job) };
  if (comment !== undefined) output.approvalComment = comment;
  const reason = comment ? `: ${comment}` : "";
  const text = `The deploy approval was rejected${reason}. Pipeline ${job.name} stopped after step ${job.currentStep}/${job.totalSteps}.`;
  return { content: [{ type: "text", text }], structuredContent: output, isError: true };
}
