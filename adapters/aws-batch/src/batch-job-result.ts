import { z } from "@jobtasks/core";
import type { JobDetail } from "@aws-sdk/client-batch";
import type { CallToolResult } from "@jobtasks/core";
import { hideArns } from "./hide-arns.js";
import { type FailedChildren, failedChildrenShown } from "./read-failed-children.js";
import type { LogTail } from "./read-log-tail.js";

/** The structuredContent of a finished job's result. ARNs are left out on purpose: they name the account. */
export const batchJobResultSchema = z.object({
  jobId: z.string(),
  jobName: z.string().optional(),
  status: z.string().describe("AWS Batch status: SUCCEEDED or FAILED"),
  statusReason: z.string().optional(),
  exitCode: z.number().int().optional().describe("Exit code of the last attempt's container"),
  containerReason: z.string().optional(),
  attempts: z.number().int(),
  startedAt: z.string().optional(),
  stoppedAt: z.string().optional(),
  durationMs: z.number().int().optional(),
  logStreamName: z.string().optional(),
  array: z
    .object({
      size: z.number().int(),
      succeeded: z.number().int(),
      failed: z.number().int(),
      failedChildren: z
        .array(
          z.object({
            index: z.number().int(),
            jobId: z.string().describe("<parentId>:<index>, for watch_job"),
            exitCode: z.number().int().optional(),
            containerReason: z.string().optional(),
            statusReason: z.string().optional(),
          }),
        )
        .optional()
        .describe(`The failed children with the lowest indices, at most ${failedChildrenShown}`),
      moreFailedChildren: z.number().int().optional().describe("How many failed children failedChildren leaves out"),
      failedChildrenNote: z.string().optional().describe("Why the failed children could not be named"),
    })
    .optional(),
  logTail: z.string().optional().describe("Last lines of the job's CloudWatch log stream, oldest first"),
  logTailTruncated: z.boolean().optional(),
  logNote: z.string().optional(),
});

export type BatchJobResult = z.infer<typeof batchJobResultSchema>;

/**
 * An epoch-milliseconds time from AWS as ISO 8601, or undefined when it is not a usable date. The SDK does
 * not check answers, and `new Date(1e20).toISOString()` throws a RangeError, which would turn one odd
 * field into a failed status read.
 */
export function isoTimeOf(epochMs: unknown): string | undefined {
  if (typeof epochMs !== "number" || !Number.isFinite(epochMs)) return undefined;
  const date = new Date(epochMs);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The facts of the last attempt: a job retried three times is judged by its third container. */
export function lastAttemptOf(job: JobDetail): { exitCode?: number; reason?: string; logStreamName?: string } {
  const attempt = job.attempts?.at(-1)?.container;
  const exitCode = attempt?.exitCode ?? job.container?.exitCode;
  const reason = attempt?.reason ?? job.container?.reason;
  const logStreamName = attempt?.logStreamName ?? job.container?.logStreamName;
  return {
    ...(exitCode !== undefined ? { exitCode } : {}),
    ...(reason ? { reason: hideArns(reason) } : {}),
    ...(logStreamName ? { logStreamName } : {}),
  };
}

export function arrayCounts(job: JobDetail): { size: number; succeeded: number; failed: number } | undefined {
  const properties = job.arrayProperties;
  if (!properties?.size) return undefined;
  const summary = properties.statusSummary ?? {};
  return { size: properties.size, succeeded: summary.SUCCEEDED ?? 0, failed: summary.FAILED ?? 0 };
}

type ArrayResult = NonNullable<BatchJobResult["array"]>;

/** The array part of a result: counts, and for a failed array the children that failed (or why not). */
function arrayResultOf(job: JobDetail, failedChildren: FailedChildren | undefined): ArrayResult | undefined {
  const counts = arrayCounts(job);
  if (!counts || !failedChildren) return counts;
  if ("unreadable" in failedChildren)
    return { ...counts, failedChildrenNote: `their list could not be read (${failedChildren.unreadable})` };
  return {
    ...counts,
    failedChildren: failedChildren.children,
    ...(failedChildren.more > 0 ? { moreFailedChildren: failedChildren.more } : {}),
  };
}

/** "Failed children: 3 (exit code 1), 7 (exit code 137: OutOfMemoryError ...), and 15 more." */
function describeFailedChildren(children: NonNullable<ArrayResult["failedChildren"]>, more: number): string {
  const named = children.map((child) => {
    const why = child.containerReason ?? (child.exitCode === undefined ? child.statusReason : undefined);
    if (child.exitCode !== undefined) return `${child.index} (exit code ${child.exitCode}${why ? `: ${why}` : ""})`;
    return why ? `${child.index} (${why})` : `${child.index}`;
  });
  if (named.length === 0) return `Failed children: ListJobs listed none of the ${more}.`;
  if (more > 0) named.push(`and ${more} more`);
  return `Failed children: ${named.join(", ")}.`;
}

export function formatDuration(milliseconds: number): string {
  if (milliseconds < 1000) return `${milliseconds} ms`;
  const totalSeconds = Math.round(milliseconds / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${hours}h ${minutes}m`;
  if (minutes > 0) return `${minutes}m ${seconds}s`;
  return `${seconds}s`;
}

/**
 * The tool result of a job that reached SUCCEEDED or FAILED. A FAILED job ran and failed: that is a
 * completed task with isError, never a protocol error.
 */
export function buildFinishedResult(
  job: JobDetail,
  logTail: LogTail | undefined,
  failedChildren?: FailedChildren,
): CallToolResult {
  const succeeded = job.status === "SUCCEEDED";
  const attempt = lastAttemptOf(job);
  const array = arrayResultOf(job, failedChildren);
  const startedAt = isoTimeOf(job.startedAt);
  const stoppedAt = isoTimeOf(job.stoppedAt);
  const durationMs = startedAt && stoppedAt ? (job.stoppedAt as number) - (job.startedAt as number) : undefined;
  const attempts = job.attempts?.length ?? 0;
  const statusReason = job.statusReason ? hideArns(job.statusReason) : undefined;
  const structured: BatchJobResult = {
    jobId: job.jobId ?? "",
    ...(job.jobName ? { jobName: job.jobName } : {}),
    status: job.status ?? "",
    ...(statusReason ? { statusReason } : {}),
    ...(attempt.exitCode !== undefined ? { exitCode: attempt.exitCode } : {}),
    ...(attempt.reason ? { containerReason: attempt.reason } : {}),
    attempts,
    ...(startedAt ? { startedAt } : {}),
    ...(stoppedAt ? { stoppedAt } : {}),
    ...(durationMs !== undefined ? { durationMs } : {}),
    ...(attempt.logStreamName ? { logStreamName: attempt.logStreamName } : {}),
    ...(array ? { array } : {}),
    ...(logTail?.text !== undefined ? { logTail: logTail.text, logTailTruncated: logTail.truncated } : {}),
    ...(logTail?.note ? { logNote: logTail.note } : {}),
  };

  // An array parent has no attempts (its children do): its times span the children, not one container.
  const facts: string[] = [];
  if (!array) {
    if (attempt.exitCode !== undefined)
      facts.push(`exit code ${attempt.exitCode}${attempt.reason ? ` (${attempt.reason})` : ""}`);
    else if (attempt.reason) facts.push(attempt.reason);
    if (durationMs !== undefined) facts.push(`ran ${formatDuration(durationMs)}`);
    if (attempts > 0) facts.push(`${attempts} attempt${attempts === 1 ? "" : "s"}`);
  }
  const arraySpan = array && durationMs !== undefined ? ` The array ran ${formatDuration(durationMs)}.` : "";
  const name = job.jobName ? `${job.jobName} (${job.jobId})` : job.jobId;
  const lines = [
    succeeded
      ? `AWS Batch job ${name} succeeded${facts.length ? `: ${facts.join(", ")}` : ""}.${arraySpan}`
      : `AWS Batch job ${name} failed${statusReason ? `: ${statusReason}` : ""}.${facts.length ? ` Last attempt: ${facts.join(", ")}.` : ""}${arraySpan}`,
  ];
  if (array) lines.push(`Array job of ${array.size}: ${array.succeeded} succeeded, ${array.failed} failed.`);
  if (array?.failedChildren) lines.push(describeFailedChildren(array.failedChildren, array.moreFailedChildren ?? 0));
  if (array?.failedChildrenNote) lines.push(`The failed children could not be named: ${array.failedChildrenNote}.`);
  if (attempt.logStreamName) lines.push(`Log stream: ${attempt.logStreamName}`);
  if (logTail?.note) lines.push(`Log tail: ${logTail.note}`);
  if (logTail?.text) lines.push("", `Last log lines${logTail.truncated ? " (older lines cut)" : ""}:`, logTail.text);

  const result: CallToolResult = { content: [{ type: "text", text: lines.join("\n") }], structuredContent: structured };
  if (!succeeded) result.isError = true;
  return result;
}
