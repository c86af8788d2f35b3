import {
  type BatchClient,
  DescribeJobsCommand,
  type JobDetail,
  type JobSummary,
  ListJobsCommand,
  SubmitJobCommand,
  type SubmitJobRequest,
  type SubmitJobResponse,
  TerminateJobCommand,
} from "@aws-sdk/client-batch";
import { type CloudWatchLogsClient, GetLogEventsCommand } from "@aws-sdk/client-cloudwatch-logs";
import { OutcomeUnknownError, UpstreamError, z } from "@jobtasks/core";
import { type BackoffPolicy, callOnce, callWithBackoff } from "./call-with-backoff.js";
import { isOutcomeUnknown, isThrottling, toUpstreamError } from "./upstream-errors.js";

/*
 * Every call this adapter makes to AWS, one typed method each: the only file that builds and sends SDK
 * commands. Reads go through call-with-backoff.ts (once, or with backoff where a caller owns its retries),
 * which turns every SDK failure into an UpstreamError. SubmitJob is sent once per call, guarded, and its
 * retries are the submit's own policy (submit-batch-job.ts). The clients are built in create-aws-clients.ts.
 */

export interface AwsBatchApi {
  /**
   * One SubmitJob. Throws the guard's OutcomeUnknownError when a job may exist (no answer, a 5xx, an
   * unreadable 2xx), else the SDK's error as it is: the submit's policy classifies it.
   */
  submitJob(request: SubmitJobRequest): Promise<SubmitJobResponse>;
  /** ListJobs by exact job name in a queue, retried on any transient fault (a read). */
  listJobsByName(query: { jobQueue: string; jobName: string }, call: { retry: BackoffPolicy }): Promise<JobSummary[]>;
  /**
   * One ListJobs page of an array's FAILED children, sent once (a status read's part). The entries are as
   * AWS sent them: the SDK does not check answers.
   */
  listFailedChildren(arrayJobId: string, call: { maxResults: number; signal: AbortSignal }): Promise<unknown[]>;
  /** TerminateJob, retried on any transient fault: terminating a finished job changes nothing. */
  terminateJob(jobId: string, reason: string, call: { retry: BackoffPolicy; signal?: AbortSignal }): Promise<void>;
  /** One DescribeJobs call for up to 100 ids; see describeJobs below. */
  describeJobs(jobIds: string[], call?: { retry?: BackoffPolicy }): Promise<JobDetail[]>;
}

export function createAwsBatchApi(client: BatchClient): AwsBatchApi {
  return {
    async submitJob(request) {
      try {
        return await client.send(guardedSubmitCommand(request));
      } catch (error) {
        // A failure outside the guard's step (before it, or around the SDK's retry loop) gets the same reading.
        throw submitOutcomeUnknown(error) ?? error;
      }
    },

    async listJobsByName({ jobQueue, jobName }, call) {
      const response = await callWithBackoff(
        "ListJobs",
        () => client.send(new ListJobsCommand({ jobQueue, filters: [{ name: "JOB_NAME", values: [jobName] }] })),
        { policy: call.retry, retryOn: "transient" },
      );
      return response.jobSummaryList ?? [];
    },

    async listFailedChildren(arrayJobId, call) {
      const { signal } = call;
      const response = await callOnce(
        `ListJobs for the failed children of array job ${arrayJobId}`,
        () =>
          client.send(new ListJobsCommand({ arrayJobId, jobStatus: "FAILED", maxResults: call.maxResults }), {
            abortSignal: signal,
          }),
        { signal },
      );
      return Array.isArray(response.jobSummaryList) ? response.jobSummaryList : [];
    },

    async terminateJob(jobId, reason, call) {
      const { signal } = call;
      await callWithBackoff(
        "TerminateJob",
        () => client.send(new TerminateJobCommand({ jobId, reason }), signal ? { abortSignal: signal } : {}),
        { policy: call.retry, retryOn: "transient", ...(signal ? { signal } : {}) },
      );
    },

    describeJobs: (jobIds, call) => describeJobs(client, jobIds, call),
  };
}

/**
 * An error after which the SubmitJob may or may not have created a job, as the core's OutcomeUnknownError:
 * the SDK error's description, status and throttling, but no `cause`. The SDK's retry classifier walks
 * `cause` chains and would find the network error or 5xx there and resend the request blindly; without
 * one it sees a client error and stops, and the adapter looks the job up first. Undefined for any other
 * error.
 */
function submitOutcomeUnknown(error: unknown): OutcomeUnknownError | undefined {
  if (error instanceof OutcomeUnknownError) return error;
  if (!isOutcomeUnknown(error)) return undefined;
  const described = toUpstreamError("SubmitJob", error);
  return new OutcomeUnknownError(described.message, {
    ...(described instanceof UpstreamError && described.httpStatus !== undefined
      ? { httpStatus: described.httpStatus }
      : {}),
    isRetryable: true,
    isThrottled: isThrottling(error),
  });
}

function guardedSubmitCommand(request: SubmitJobRequest): SubmitJobCommand {
  const command = new SubmitJobCommand(request);
  // "finalizeRequest" at low priority runs inside the SDK's retry loop, once per attempt it makes.
  command.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        throw submitOutcomeUnknown(error) ?? error;
      }
    },
    { step: "finalizeRequest", priority: "low", name: "jobtasksSubmitOutcomeGuard" },
  );
  return command;
}

/**
 * The least a DescribeJobs answer must hold to be read at all: a `jobs` array of objects that each carry a
 * job id. The SDK does not check the shape of an answer, and a proxy or emulator (the `endpoint` option) can
 * answer 200 with anything. Other fields stay as sent: the mapping treats every status as open and every
 * time as optional.
 */
const describeJobsResponseSchema = z.looseObject({
  jobs: z.array(z.looseObject({ jobId: z.string().min(1) })),
});

/** Why an answer is unusable, as a retryable error: nothing in it says anything about any of the jobs. */
export function unreadableDescribeJobsError(operation: string, detail: string, cause?: unknown): UpstreamError {
  return new UpstreamError(`AWS Batch ${operation} gave an unreadable answer (${detail}); it will be read again`, {
    isRetryable: true,
    ...(cause !== undefined ? { cause } : {}),
  });
}

/**
 * The jobs of a DescribeJobs answer. Only an id missing from a well-formed `jobs` array means "unknown or
 * expired"; an answer without that array (an empty body, `{}`) or with entries that are not jobs is an
 * unreadable answer, retryable, so it never ends the tasks it was meant to report on.
 */
function jobsOfDescribeJobsResponse(operation: string, response: unknown): JobDetail[] {
  const parsed = describeJobsResponseSchema.safeParse(response);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "body";
    throw unreadableDescribeJobsError(operation, `${where}: ${issue?.message ?? "unexpected shape"}`, parsed.error);
  }
  // The checked part only; the rest is read field by field, each as optional, by the mapping.
  return parsed.data.jobs as unknown as JobDetail[];
}

/**
 * One DescribeJobs call for up to 100 ids. Status reads send it once (`retry` unset): the server's reader
 * retries them. watch_job's start, which the server never retries, passes a backoff policy.
 */
async function describeJobs(
  client: BatchClient,
  jobIds: string[],
  call: { retry?: BackoffPolicy } = {},
): Promise<JobDetail[]> {
  // A read of one id names it, so the error that reaches that id's task is about its own job.
  const operation =
    jobIds.length === 1 ? `DescribeJobs for job ${jobIds[0]}` : `DescribeJobs for ${jobIds.length} jobs`;
  const send = () => client.send(new DescribeJobsCommand({ jobs: jobIds }));
  const response = call.retry
    ? await callWithBackoff(operation, send, { policy: call.retry, retryOn: "transient" })
    : await callOnce(operation, send, {});
  return jobsOfDescribeJobsResponse(operation, response);
}

/** The CloudWatch Logs calls: the log tail of a finished job. */
export interface CloudWatchLogsApi {
  /** The Region the client reads, or undefined when it cannot be told. */
  region(): Promise<string | undefined>;
  /** The messages of the newest `limit` events of a stream, oldest first; GetLogEvents sent once. */
  getLogEvents(
    request: { logGroupName: string; logStreamName: string; limit: number },
    signal?: AbortSignal,
  ): Promise<string[]>;
}

export function createLogsApi(client: CloudWatchLogsClient): CloudWatchLogsApi {
  return {
    region: () => client.config.region().catch(() => undefined),
    async getLogEvents({ logGroupName, logStreamName, limit }, signal) {
      const response = await callOnce(
        "GetLogEvents",
        () =>
          client.send(
            new GetLogEventsCommand({ logGroupName, logStreamName, startFromHead: false, limit }),
            signal ? { abortSignal: signal } : {},
          ),
        { service: "CloudWatch Logs", ...(signal ? { signal } : {}) },
      );
      return (response.events ?? []).map((event) => event.message ?? "");
    },
  };
}
