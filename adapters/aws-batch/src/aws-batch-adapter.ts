import type { BatchClient } from "@aws-sdk/client-batch";
import type { CloudWatchLogsClient } from "@aws-sdk/client-cloudwatch-logs";
import {
  AdapterConfigError,
  configErrorFromIssues,
  type JobAdapterV1,
  JobNotFoundError,
  type JobTool,
} from "@jobtasks/core";
import { type AwsBatchOptions, awsBatchOptionsSchema, type ResolvedAwsBatchOptions } from "./aws-batch-options.js";
import { batchJobRefSchema, submittedAtOf, type BatchJobRef } from "./batch-job-ref.js";
import { batchStateChangeEvents } from "./batch-state-change-events.js";
import type { BackoffPolicy } from "./call-with-backoff.js";
import { assertConfiguredRegionValid } from "./aws-region-source.js";
import { cancelBatchJob } from "./cancel-batch-job.js";
import { type CloudWatchLogsApi, createAwsBatchApi, createLogsApi } from "./aws-batch-api.js";
import { createBatchClient, createLogsClient } from "./create-aws-clients.js";
import { createDescribeJobsBatcher } from "./describe-jobs-batcher.js";
import { createGenericSubmitTool } from "./generic-submit-tool.js";
import { createSnapshotReader } from "./read-job-snapshot.js";
import type { SubmitDependencies } from "./submit-batch-job.js";
import { createSubmitRateLimiter } from "./submit-rate-limiter.js";
import { createTemplateSubmitTool } from "./template-submit-tool.js";
import { createWatchJobTool } from "./watch-job-tool.js";

/** AWS Batch keeps finished jobs visible for at least 7 days; past that a task may be forgotten. */
export const batchRetentionMs = 7 * 24 * 60 * 60 * 1000;

/**
 * How long after SubmitJob a job missing from DescribeJobs still counts as "being registered" rather than
 * unknown. DescribeJobs normally lists a job at once; this only absorbs a lagging read.
 */
export const visibilityGraceMs = 60_000;

/** Where an option may come from in the environment, named in errors so the fix is obvious. */
const environmentVariables: Record<string, string> = {
  region: "AWS_REGION",
  profile: "AWS_PROFILE",
  "credentials.accessKeyId": "AWS_ACCESS_KEY_ID",
  "credentials.secretAccessKey": "AWS_SECRET_ACCESS_KEY",
  "credentials.sessionToken": "AWS_SESSION_TOKEN",
  eventSecret: "BATCH_EVENT_SECRET",
};

/**
 * Validate options and fill defaults, failing with the first problem as an AdapterConfigError that names
 * the option. Option values never appear in the message: they may be credentials. The injected clients and
 * random source are code only: the schema, strict, would refuse them.
 */
function resolveAwsBatchOptions(options: AwsBatchOptions): ResolvedAwsBatchOptions {
  const { batchClient: _batchClient, logsClient: _logsClient, random: _random, ...configurable } = options;
  const parsed = awsBatchOptionsSchema.safeParse(configurable, { jitless: true });
  if (parsed.success) return parsed.data;
  throw configErrorFromIssues(parsed.error, { environmentVariables });
}

/**
 * Build the AWS Batch adapter: one submit tool per template, an optional allow-listed generic submit tool and
 * `watch_job`. Options are validated here; an AdapterConfigError names the first bad option.
 */
export function awsBatch(
  options: AwsBatchOptions,
  environment: Readonly<Record<string, string | undefined>> = process.env,
): JobAdapterV1<BatchJobRef> {
  const resolved = resolveAwsBatchOptions(options);
  const ownsBatchClient = options.batchClient === undefined;
  const ownsLogsClient = resolved.logs !== undefined && options.logsClient === undefined;
  // An injected client carries its own Region. For one this adapter builds, a Region found nowhere is not
  // refused here: on EC2 the SDK finds it in instance metadata at the first call, and otherwise that call
  // fails with a non-retryable error saying what to configure.
  if (ownsBatchClient || ownsLogsClient) assertConfiguredRegionValid(resolved, environment);
  const batchClient: BatchClient = options.batchClient ?? createBatchClient(resolved, environment);
  const logsClient: CloudWatchLogsClient | undefined = resolved.logs
    ? (options.logsClient ?? createLogsClient(resolved, environment))
    : undefined;
  // Logs kept in another Region (a job definition's awslogs-region) are read with a client for that Region,
  // built once per Region. Only when the adapter builds its clients: an injected client or a custom Logs
  // endpoint says where Logs is, and the result then notes the other Region instead.
  const regionalLogsClients = new Map<string, CloudWatchLogsClient>();
  const regionalLogsApis = new Map<string, CloudWatchLogsApi>();
  const clientForRegion =
    ownsLogsClient && resolved.logs?.endpoint === undefined
      ? (region: string): CloudWatchLogsApi => {
          let api = regionalLogsApis.get(region);
          if (!api) {
            const client = createLogsClient({ ...resolved, region }, environment);
            regionalLogsClients.set(region, client);
            api = createLogsApi(client);
            regionalLogsApis.set(region, api);
          }
          return api;
        }
      : undefined;
  const eventSecret = eventSecretOf(resolved, environment);
  // The keys this adapter holds, for the core to redact: the configured ones, and those the SDK's default
  // chain reads from the environment. Keys it finds elsewhere (a profile, an instance role) are never seen
  // here; hideAwsCredentials catches those by their shape.
  const secrets = [
    resolved.credentials?.accessKeyId,
    resolved.credentials?.secretAccessKey,
    resolved.credentials?.sessionToken,
    environment["AWS_SECRET_ACCESS_KEY"],
    environment["AWS_SESSION_TOKEN"],
    eventSecret,
  ].filter((secret): secret is string => secret !== undefined && secret !== "");
  const policy: BackoffPolicy = options.random ? { ...resolved.retry, random: options.random } : resolved.retry;

  const batchApi = createAwsBatchApi(batchClient);
  const describer = (retry?: BackoffPolicy) =>
    createDescribeJobsBatcher({
      windowMs: resolved.describeBatchWindowMs,
      describe: (jobIds) => batchApi.describeJobs(jobIds, retry ? { retry } : {}),
    });
  // Status reads send DescribeJobs once: the server's reader retries them. watch_job's start, which the
  // server never retries, backs off on its own.
  const describe = describer();
  const describeForWatch = describer(policy);

  const snapshotOf = createSnapshotReader({
    batchApi,
    ...(logsClient && resolved.logs
      ? {
          logs: {
            api: createLogsApi(logsClient),
            options: resolved.logs,
            ...(clientForRegion ? { clientForRegion } : {}),
          },
        }
      : {}),
  });

  const submitDependencies: SubmitDependencies = {
    api: batchApi,
    policy,
    rateLimiter: createSubmitRateLimiter(resolved.submitsPerSecond),
    duplicateCheckDelayMs: resolved.duplicateCheckDelayMs,
  };
  const tools: JobTool<BatchJobRef>[] = resolved.templates.map((template) =>
    createTemplateSubmitTool(template, submitDependencies),
  );
  if (resolved.genericSubmit) tools.push(createGenericSubmitTool(resolved.genericSubmit, submitDependencies));
  if (resolved.watch) tools.push(createWatchJobTool(resolved.watch, { describe: describeForWatch, snapshotOf }));

  return {
    specificationVersion: "v1",
    kind: "aws-batch",
    tools,
    pollIntervalMs: resolved.pollIntervalMs,
    retentionMs: batchRetentionMs,
    // The server checks every ref against it before the methods below see one.
    refSchema: batchJobRefSchema,
    secrets,
    ...(eventSecret !== undefined
      ? {
          events: batchStateChangeEvents({
            secret: eventSecret,
            header: resolved.eventSecretHeader,
            logsAttached: resolved.logs !== undefined,
          }),
        }
      : {}),

    async doGetStatus(ref, context) {
      try {
        return await snapshotOf(await describe.load(ref.jobId, context.signal), context.signal);
      } catch (error) {
        const submittedAt = submittedAtOf(ref);
        if (
          error instanceof JobNotFoundError &&
          submittedAt !== undefined &&
          Date.now() - submittedAt < visibilityGraceMs
        ) {
          return {
            status: "working",
            rawStatus: "SUBMITTED",
            message: "SUBMITTED: waiting for AWS Batch to list the job",
          };
        }
        throw error;
      }
    },

    doCancel: (ref, context) => cancelBatchJob(ref, { api: batchApi, policy }, context),

    async close() {
      if (ownsBatchClient) batchClient.destroy();
      if (ownsLogsClient) logsClient?.destroy();
      for (const client of regionalLogsClients.values()) client.destroy();
    },
  };
}

/** The EventBridge connection's secret, from the option or BATCH_EVENT_SECRET; none means no events. */
function eventSecretOf(
  resolved: ResolvedAwsBatchOptions,
  environment: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const secret = resolved.eventSecret ?? (environment["BATCH_EVENT_SECRET"] || undefined);
  if (secret !== undefined && secret.length < 16)
    throw new AdapterConfigError("eventSecret", "at least 16 characters (from the option, or BATCH_EVENT_SECRET)");
  return secret;
}
