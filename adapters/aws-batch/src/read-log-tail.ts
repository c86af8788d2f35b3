import type { JobDetail } from "@aws-sdk/client-batch";
import { type CloudWatchLogsClient, GetLogEventsCommand } from "@aws-sdk/client-cloudwatch-logs";
import { redactSecrets, UpstreamError } from "@jobtasks/core";
import type { ResolvedLogTail } from "./aws-batch-options-schema.js";
import { lastAttemptOf } from "./batch-job-result.js";
import { type BackoffPolicy, callWithBackoff } from "./call-with-backoff.js";
import { awsErrorCodeOf, hideAwsCredentials } from "./upstream-errors.js";

/** The end of a job's log, or a note saying why there is none. */
export interface LogTail {
  text?: string;
  /** Older lines (or the start of an over-long line) were dropped to fit the byte budget. */
  truncated: boolean;
  note?: string;
}

const byteLength = (text: string): number => Buffer.byteLength(text, "utf8");

/**
 * CloudWatch Logs refusals that will not change for this job, so a note about them may be frozen into its
 * finished result (the server keeps a terminal answer forever). Anything else may pass and stays retryable.
 */
const lastingRefusals: Readonly<Record<string, string>> = {
  ResourceNotFoundException: "the log stream does not exist (yet, or any more)",
  AccessDeniedException: "no permission to read it (logs:GetLogEvents)",
  InvalidParameterException: "CloudWatch Logs refused the request (InvalidParameterException)",
};

/** Keep the newest lines that fit in `maxBytes` of UTF-8, oldest first. */
export function fitLogLines(messages: string[], maxBytes: number): { text: string; truncated: boolean } {
  const lines = messages.map((message) => message.replace(/\r?\n$/, ""));
  const kept: string[] = [];
  let used = 0;
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = lines[index] as string;
    const cost = byteLength(line) + (kept.length > 0 ? 1 : 0);
    if (used + cost > maxBytes) break;
    kept.unshift(line);
    used += cost;
  }
  if (kept.length === 0 && lines.length > 0) {
    // A single line longer than the budget: its end is usually the part that explains the failure.
    const bytes = Buffer.from(lines.at(-1) as string, "utf8");
    const tail = bytes.subarray(bytes.length - maxBytes).toString("utf8").replace(/^\uFFFD+/, "");
    return { text: tail, truncated: true };
  }
  return { text: kept.join("\n"), truncated: kept.length < lines.length };
}

/** The log group a job writes to: its own awslogs setting if it has one, else the configured default. */
function logGroupOf(job: JobDetail, options: ResolvedLogTail): string | { note: string } {
  const logConfiguration = job.container?.logConfiguration;
  if (!logConfiguration?.logDriver) return options.logGroupName;
  if (logConfiguration.logDriver !== "awslogs") return { note: `the job logs with ${logConfiguration.logDriver}, not CloudWatch Logs` };
  return logConfiguration.options?.["awslogs-group"] ?? options.logGroupName;
}

/**
 * Read the last lines of a finished job's CloudWatch log stream. The log is an extra, not the result, so a
 * Logs error never fails the task: a lasting refusal (missing stream, no permission, invalid parameters)
 * becomes a note, and anything else, even a definite refusal such as expired credentials, throws a
 * retryable error, so the task stays working and a finished result never shows a tail on one read and a
 * frozen note about a passing fault on the next.
 */
export async function readLogTail(
  client: CloudWatchLogsClient,
  job: JobDetail,
  options: ResolvedLogTail,
  call: { policy: BackoffPolicy; secrets: ReadonlyArray<string | undefined>; signal?: AbortSignal },
): Promise<LogTail | undefined> {
  const { logStreamName } = lastAttemptOf(job);
  if (!logStreamName) return undefined;
  const logGroupName = logGroupOf(job, options);
  if (typeof logGroupName !== "string") return { truncated: false, note: logGroupName.note };
  try {
    const response = await callWithBackoff(
      "GetLogEvents",
      () =>
        client.send(
          new GetLogEventsCommand({ logGroupName, logStreamName, startFromHead: false, limit: options.maxLines }),
          call.signal ? { abortSignal: call.signal } : {},
        ),
      {
        policy: call.policy,
        retryOn: "transient",
        secrets: call.secrets,
        service: "CloudWatch Logs",
        ...(call.signal ? { signal: call.signal } : {}),
      },
    );
    const messages = (response.events ?? []).map((event) => event.message ?? "");
    const fitted = fitLogLines(messages, options.maxBytes);
    return { text: redactSecrets(hideAwsCredentials(fitted.text), call.secrets), truncated: fitted.truncated };
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error; // an abort
    const lasting = lastingRefusals[awsErrorCodeOf(error.cause) ?? ""];
    if (lasting && !error.isRetryable) return { truncated: false, note: `log unavailable: ${lasting}` };
    if (error.isRetryable) throw error;
    const passing: ConstructorParameters<typeof UpstreamError>[1] = { isRetryable: true, cause: error.cause };
    if (error.httpStatus !== undefined) passing.httpStatus = error.httpStatus;
    throw new UpstreamError(error.message, passing);
  }
}
