import type { JobDetail } from "@aws-sdk/client-batch";
import type { JobSnapshot } from "@jobtasks/core";
import type { AwsBatchApi, CloudWatchLogsApi } from "./aws-batch-api.js";
import type { ResolvedLogTail } from "./aws-batch-options.js";
import { buildJobSnapshot } from "./build-job-snapshot.js";
import { wasCancelled } from "./map-aws-batch-status.js";
import { hasFailedChildren, readFailedChildren } from "./read-failed-children.js";
import { readLogTail } from "./read-log-tail.js";

export interface SnapshotReaderDependencies {
  batchApi: AwsBatchApi;
  /** Set when the `logs` option is: the client and budget of the log tail of finished jobs. */
  logs?: {
    api: CloudWatchLogsApi;
    options: ResolvedLogTail;
    /** A client for a log kept in another Region (awslogs-region), when the adapter can build one. */
    clientForRegion?: (region: string) => CloudWatchLogsApi;
  };
}

/**
 * The snapshot of a job DescribeJobs just returned. A finished job's result also needs what DescribeJobs
 * does not hold, read here: the end of its log and, for a failed array, which children failed. Status
 * reads and watch_job's start share it, so both answer a finished job alike.
 */
export function createSnapshotReader(
  dependencies: SnapshotReaderDependencies,
): (job: JobDetail, signal?: AbortSignal) => Promise<JobSnapshot> {
  const { batchApi, logs } = dependencies;
  return async (job, signal) => {
    const finished = job.status === "SUCCEEDED" || (job.status === "FAILED" && !wasCancelled(job));
    const stoppedAgoMs = job.stoppedAt === undefined ? undefined : Date.now() - job.stoppedAt;
    if (finished && logs && stoppedAgoMs !== undefined && stoppedAgoMs >= 0 && stoppedAgoMs < logs.options.settleMs) {
      // A terminal answer never changes, so it waits until the last log lines have reached CloudWatch Logs.
      return {
        status: "working",
        rawStatus: job.status ?? "",
        message: `${job.status}: collecting the end of the log`,
      };
    }
    const logTail =
      finished && logs
        ? await readLogTail(logs.api, job, logs.options, {
            ...(signal ? { signal } : {}),
            ...(logs.clientForRegion ? { clientForRegion: logs.clientForRegion } : {}),
          })
        : undefined;
    const failedChildren =
      finished && hasFailedChildren(job)
        ? await readFailedChildren(job, { api: batchApi, ...(signal ? { signal } : {}) })
        : undefined;
    return buildJobSnapshot(job, logTail, failedChildren);
  };
}
