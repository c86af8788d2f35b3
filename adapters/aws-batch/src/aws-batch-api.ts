import { BatchClient, DescribeJobsCommand, type JobDetail } from "@aws-sdk/client-batch";
import { CloudWatchLogsClient } from "@aws-sdk/client-cloudwatch-logs";
import { UpstreamError } from "@jobtasks/core";
import { z } from "zod";
import type { ResolvedAwsBatchOptions } from "./aws-batch-options.js";
import { type BackoffPolicy, callOnce, callWithBackoff } from "./call-with-backoff.js";

/*
 * The AWS clients: the Batch and CloudWatch Logs clients this adapter builds (Region, credentials, endpoint,
 * timeouts, no SDK retries), and DescribeJobs, the call every status read makes, with its answer checked.
 * The other calls are sent where they are decided (submit, cancel, log tail, failed children), each through
 * call-with-backoff.ts, which turns every SDK failure into an UpstreamError.
 */

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The settings both clients share. What is not configured is left to the SDK's default chains (region from
 * AWS_REGION or the profile, credentials from the environment, profile, web identity or instance role).
 * The adapter retries on its own (see call-with-backoff.ts), so the SDK sends each call once: two
 * stacked retry loops would multiply the load exactly when AWS asks for less.
 */
function sharedClientConfig(options: ResolvedAwsBatchOptions, environment: Environment, endpoint: string | undefined) {
  const region = options.region ?? environment.AWS_REGION ?? environment.AWS_DEFAULT_REGION;
  return {
    maxAttempts: 1,
    // Without a timeout one hung connection would stall every status read batched with it.
    // (throwOnRequestTimeout: the handler only logs a warning otherwise.)
    requestHandler: {
      requestTimeout: options.requestTimeoutMs,
      connectionTimeout: Math.min(options.requestTimeoutMs, 5000),
      throwOnRequestTimeout: true,
    },
    ...(region ? { region } : {}),
    ...(options.profile ? { profile: options.profile } : {}),
    // A copy each: the SDK writes bookkeeping into the credentials object it is given.
    ...(options.credentials ? { credentials: awsCredentials(options.credentials) } : {}),
    ...(endpoint ? { endpoint } : {}),
  };
}

/** The SDK's credentials type has no room for `sessionToken: undefined`, which the options schema may give. */
function awsCredentials({ sessionToken, ...keys }: NonNullable<ResolvedAwsBatchOptions["credentials"]>) {
  return { ...keys, ...(sessionToken !== undefined ? { sessionToken } : {}) };
}

export function createBatchClient(options: ResolvedAwsBatchOptions, environment: Environment): BatchClient {
  return new BatchClient(sharedClientConfig(options, environment, options.endpoint));
}

export function createLogsClient(options: ResolvedAwsBatchOptions, environment: Environment): CloudWatchLogsClient {
  return new CloudWatchLogsClient(sharedClientConfig(options, environment, options.logs?.endpoint));
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
export async function describeJobs(
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
