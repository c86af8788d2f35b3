import { BatchClient } from "@aws-sdk/client-batch";
import { CloudWatchLogsClient } from "@aws-sdk/client-cloudwatch-logs";
import type { ResolvedAwsBatchOptions } from "./aws-batch-options.js";
import { upstreamRequestStarted } from "@jobtasks/core/adapter-utils";

/*
 * The transport under aws-batch-api.ts: the Batch and CloudWatch Logs clients this adapter builds (Region,
 * credentials, endpoint, timeouts, no SDK retries). The factory builds them and hands them to
 * aws-batch-api.ts, which alone sends commands through them.
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
  return observeRequests(new BatchClient(sharedClientConfig(options, environment, options.endpoint)), "batch");
}

export function createLogsClient(options: ResolvedAwsBatchOptions, environment: Environment): CloudWatchLogsClient {
  return observeRequests(
    new CloudWatchLogsClient(sharedClientConfig(options, environment, options.logs?.endpoint)),
    "logs",
  );
}

/**
 * Each command as the server's telemetry sees it, named by the service and command ("batch
 * DescribeJobs"); its trace context is added at the build step, before the request is signed.
 */
function observeRequests<Client extends BatchClient | CloudWatchLogsClient>(client: Client, service: string): Client {
  (client.middlewareStack as BatchClient["middlewareStack"]).add(
    (next, context) => async (args) => {
      const command = context.commandName ?? "UnknownCommand";
      const observed = upstreamRequestStarted({
        operation: command,
        method: "POST",
        urlTemplate: `${service} ${command}`,
      });
      const request = args.request as { headers?: Record<string, string> } | undefined;
      if (request?.headers) Object.assign(request.headers, observed.headers);
      try {
        const output = await next(args);
        observed.end({ status: (output.response as { statusCode?: number } | undefined)?.statusCode ?? 200 });
        return output;
      } catch (error) {
        const failure = error as { name?: unknown; $metadata?: { httpStatusCode?: unknown } };
        const status = failure.$metadata?.httpStatusCode;
        observed.end({
          ...(typeof status === "number" ? { status } : {}),
          // The SDK's error names are AWS's fixed codes (ThrottlingException), never a message.
          errorType: typeof failure.name === "string" ? failure.name : "connection",
        });
        throw error;
      }
    },
    { step: "build", name: "jobtasksUpstreamRequests" },
  );
  return client;
}
