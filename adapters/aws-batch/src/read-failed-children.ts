import type { JobDetail } from "@aws-sdk/client-batch";
import { UpstreamError } from "@jobtasks/core";
import type { AwsBatchApi } from "./aws-batch-api.js";
import { hideArns } from "./hide-arns.js";

/** How many failed children a result names; the rest are counted. */
export const failedChildrenShown = 10;
/** One ListJobs page: enough that the lowest indices are named whenever at most this many failed. */
const listPageSize = 100;
/** A status read must not wait long for details: past this, the read counts as failed. */
const childrenReadTimeoutMs = 5_000;
/**
 * How long after the array stopped a ListJobs that may pass fails the status read (which the server then
 * retries, keeping the task working) rather than freezing "could not be read" into the finished result.
 * Below the server's default outage budget (10 min), which would otherwise end the task failed.
 */
export const childrenGiveUpMs = 5 * 60_000;

export interface FailedChild {
  index: number;
  /** `<parentId>:<index>`, for watch_job. */
  jobId: string;
  exitCode?: number;
  containerReason?: string;
  statusReason?: string;
}

/** The failed children of a failed array job, or why they are not known. */
export type FailedChildren = { children: FailedChild[]; more: number } | { unreadable: string };

/** A failed array parent that counts failed children: the job whose result should name them. */
export function hasFailedChildren(job: JobDetail): boolean {
  return (
    job.status === "FAILED" &&
    (job.arrayProperties?.size ?? 0) > 0 &&
    (job.arrayProperties?.statusSummary?.FAILED ?? 0) > 0
  );
}

export interface ChildrenReadDependencies {
  api: AwsBatchApi;
  /** The status read's own signal: when it fires, the read is being abandoned and so is this. */
  signal?: AbortSignal;
}

/**
 * Which children of a failed array failed, and why: one ListJobs call (arrayJobId, jobStatus FAILED, one
 * page), sent once per status read, within a few seconds. The children are sorted by index and the first
 * few named; the others are counted. A failure that may pass (throttling, 5xx, no answer) fails the status
 * read, for the server's reader to retry, until `childrenGiveUpMs` after the array stopped; past that, and
 * for a refusal, the result says the details could not be read.
 */
export async function readFailedChildren(
  job: JobDetail,
  dependencies: ChildrenReadDependencies,
): Promise<FailedChildren> {
  const parentId = job.jobId ?? "";
  const deadline = AbortSignal.timeout(childrenReadTimeoutMs);
  const signal = dependencies.signal ? AbortSignal.any([dependencies.signal, deadline]) : deadline;
  let summaries: unknown[];
  try {
    summaries = await dependencies.api.listFailedChildren(parentId, { maxResults: listPageSize, signal });
  } catch (error) {
    if (dependencies.signal?.aborted) throw error;
    const detail = deadline.aborted
      ? `no answer within ${childrenReadTimeoutMs / 1000} s`
      : error instanceof Error
        ? error.message
        : String(error);
    const mayPass = deadline.aborted || (error instanceof UpstreamError && error.isRetryable);
    const stoppedAgoMs = typeof job.stoppedAt === "number" ? Date.now() - job.stoppedAt : Number.POSITIVE_INFINITY;
    if (mayPass && stoppedAgoMs < childrenGiveUpMs) {
      throw error instanceof UpstreamError
        ? error
        : new UpstreamError(`AWS Batch ListJobs for the failed children of array job ${parentId}: ${detail}`, {
            isRetryable: true,
            cause: error,
          });
    }
    return { unreadable: detail };
  }
  const listed = summaries.flatMap((summary) => failedChildOf(summary, parentId)).sort((a, b) => a.index - b.index);
  const children = listed.slice(0, failedChildrenShown);
  const failedCount = Math.max(job.arrayProperties?.statusSummary?.FAILED ?? 0, listed.length);
  return { children, more: failedCount - children.length };
}

/** One ListJobs entry as a failed child; nothing when it names no index (the SDK does not check answers). */
function failedChildOf(summary: unknown, parentId: string): FailedChild[] {
  if (typeof summary !== "object" || summary === null) return [];
  const entry = summary as {
    jobId?: unknown;
    arrayProperties?: { index?: unknown };
    statusReason?: unknown;
    container?: { exitCode?: unknown; reason?: unknown };
  };
  const fromId = /:(\d+)$/.exec(String(entry.jobId ?? ""))?.[1];
  const index = entry.arrayProperties?.index ?? (fromId === undefined ? undefined : Number(fromId));
  if (typeof index !== "number" || !Number.isInteger(index) || index < 0) return [];
  const exitCode = entry.container?.exitCode;
  const containerReason = entry.container?.reason;
  return [
    {
      index,
      jobId: `${parentId}:${index}`,
      ...(typeof exitCode === "number" && Number.isInteger(exitCode) ? { exitCode } : {}),
      ...(typeof containerReason === "string" && containerReason !== ""
        ? { containerReason: hideArns(containerReason) }
        : {}),
      ...(typeof entry.statusReason === "string" && entry.statusReason !== ""
        ? { statusReason: hideArns(entry.statusReason) }
        : {}),
    },
  ];
}
