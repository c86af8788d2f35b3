import type { JobDetail } from "@aws-sdk/client-batch";
import { terminalSafe, UpstreamError } from "@jobtasks/core";
import { tailWithinBytes } from "@jobtasks/core/adapter-utils";
import type { CloudWatchLogsApi } from "./aws-batch-api.js";
import type { ResolvedLogTail } from "./aws-batch-options.js";
import { lastAttemptOf } from "./batch-job-result.js";
import { awsRegionPattern } from "./aws-region-source.js";
import { awsErrorCodeOf, hideAwsCredentials } from "./upstream-errors.js";

/** The end of a job's log, or a note saying why there is none. */
export interface LogTail {
  text?: string;
  /** Older lines (or the start of an over-long line) were dropped to fit the byte budget. */
  truncated: boolean;
  note?: string;
}

const byteLength = (text: string): number => Buffer.byteLength(text, "utf8");

/** Plain words for the Logs refusals seen most; any other code is named as it is. */
const refusalReasons: Readonly<Record<string, string>> = {
  ResourceNotFoundException: "the log stream does not exist (yet, or any more)",
  AccessDeniedException: "no permission to read it (logs:GetLogEvents)",
  UnrecognizedClientException: "CloudWatch Logs does not recognise the credentials (UnrecognizedClientException)",
};

/** Keep the newest lines that fit in `maxBytes` of UTF-8, oldest first. */
export function fitLogLines(messages: string[], maxBytes: number): { text: string; truncated: boolean } {
  // A job's output may hold escapes that set a title or write the clipboard of whoever reads the result.
  const lines = messages.map((message) => terminalSafe(message.replace(/\r?\n$/, "")));
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
    return { text: tailWithinBytes(lines.at(-1) as string, maxBytes), truncated: true };
  }
  return { text: kept.join("\n"), truncated: kept.length < lines.length };
}

/** Where a job's log is: its own awslogs group and Region if it sets them, else the configured group. */
function logLocationOf(
  job: JobDetail,
  options: ResolvedLogTail,
): { logGroupName: string; region?: string } | { note: string } {
  const logConfiguration = job.container?.logConfiguration;
  if (!logConfiguration?.logDriver) return { logGroupName: options.logGroupName };
  if (logConfiguration.logDriver !== "awslogs")
    return { note: `the job logs with ${logConfiguration.logDriver}, not CloudWatch Logs` };
  const region = logConfiguration.options?.["awslogs-region"];
  return {
    logGroupName: logConfiguration.options?.["awslogs-group"] ?? options.logGroupName,
    ...(region ? { region } : {}),
  };
}

/**
 * The client that reads a log kept in `region`: the adapter's own when that is its Region, else one for
 * that Region if the adapter can build it. Asking the wrong Region answers "the stream does not exist",
 * which would be frozen into the result as a false note.
 */
async function clientForLog(
  client: CloudWatchLogsApi,
  region: string | undefined,
  clientForRegion: ((region: string) => CloudWatchLogsApi | undefined) | undefined,
): Promise<CloudWatchLogsApi | { note: string }> {
  if (!region) return client;
  const ownRegion = await client.region();
  if (region === ownRegion) return client;
  const other = awsRegionPattern.test(region) ? clientForRegion?.(region) : undefined;
  if (other) return other;
  return {
    note: `log unavailable: the job logs to CloudWatch Logs in ${region}, and this adapter reads ${ownRegion ?? "another Region"}`,
  };
}

/**
 * Read the last lines of a finished job's CloudWatch log stream, in the Region the job logs to. The log is an extra, not the result, so a
 * Logs error never fails the task. A passing fault (throttling, 5xx, no answer, expired credentials) throws
 * a retryable error while the job stopped less than `giveUpMs` ago, so the task stays working and the
 * tail is read once Logs answers (GetLogEvents is sent once per read: the server's reader retries the
 * read); past that, and for any other error (a missing stream, no permission,
 * wrong credentials or endpoint for Logs, a refused request), the result gets a note instead of the tail.
 * The server keeps a finished result forever, so the note is frozen into it; the give-up window is shorter
 * than the server's outage budget, which would otherwise end the task failed.
 */
export async function readLogTail(
  client: CloudWatchLogsApi,
  job: JobDetail,
  options: ResolvedLogTail,
  call: {
    signal?: AbortSignal;
    /** A client for a log kept in another Region (awslogs-region), when the adapter can build one. */
    clientForRegion?: (region: string) => CloudWatchLogsApi | undefined;
  },
): Promise<LogTail | undefined> {
  const { logStreamName } = lastAttemptOf(job);
  if (!logStreamName) return undefined;
  const location = logLocationOf(job, options);
  if ("note" in location) return { truncated: false, note: location.note };
  const { logGroupName } = location;
  const reader = await clientForLog(client, location.region, call.clientForRegion);
  if ("note" in reader) return { truncated: false, note: reader.note };
  try {
    const messages = await reader.getLogEvents({ logGroupName, logStreamName, limit: options.maxLines }, call.signal);
    const fitted = fitLogLines(messages, options.maxBytes);
    // The core redacts the configured keys (withSecretRedaction); hideAwsCredentials covers keys a job
    // printed that the adapter never held.
    return { text: hideAwsCredentials(fitted.text), truncated: fitted.truncated };
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error; // an abort
    const code =
      awsErrorCodeOf(error.cause) ?? (error.httpStatus !== undefined ? `HTTP ${error.httpStatus}` : "no answer");
    if (error.isRetryable) {
      const stoppedAgoMs = typeof job.stoppedAt === "number" ? Date.now() - job.stoppedAt : Number.POSITIVE_INFINITY;
      if (stoppedAgoMs < options.giveUpMs) throw error;
      const minutes = Math.round(options.giveUpMs / 60_000);
      return {
        truncated: false,
        note: `log unavailable: CloudWatch Logs did not answer for ${minutes} min after the job stopped (${code})`,
      };
    }
    const reason = refusalReasons[code] ?? `CloudWatch Logs refused the request (${code})`;
    return { truncated: false, note: `log unavailable: ${reason}` };
  }
}
