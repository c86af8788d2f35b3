import type { BatchClient } from "@aws-sdk/client-batch";
import type { CloudWatchLogsClient } from "@aws-sdk/client-cloudwatch-logs";

/**
 * Options of the AWS Batch adapter. The same shape is the `options` block of an `aws-batch` adapter in a
 * jobtasks config file, minus the injected clients.
 */
export interface AwsBatchOptions {
  /**
   * AWS Region. Default: the SDK's chain (AWS_REGION, AWS_DEFAULT_REGION, the profile's region, then on EC2
   * the instance metadata).
   */
  region?: string;
  /** Named profile from ~/.aws/config (may assume a role). Default: the SDK's chain (AWS_PROFILE, "default"). */
  profile?: string;
  /**
   * Static credentials, typically `${AWS_ACCESS_KEY_ID}`-style references in the config file. Default: the
   * SDK's default chain (environment, profile, web identity, container or instance role). Never logged.
   */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Another endpoint for the Batch API (a VPC endpoint, a local emulator). Default: AWS's own. */
  endpoint?: string;

  /** One submit tool per entry: the agent fills only what the template allows. Default: none. */
  templates?: JobTemplateOptions[];
  /** A generic submit tool restricted to allow-listed queues and job definitions. Default: not offered. */
  genericSubmit?: GenericSubmitOptions;
  /** The tool that follows a job submitted elsewhere; `false` leaves it out. Default: `{ tool: "watch_job" }`. */
  watch?: WatchToolOptions | false;

  /**
   * How tasks/cancel stops a job. Both values send one TerminateJob, which cancels a job that has not
   * reached STARTING and stops one that has (array children included); choosing CancelJob from a prior read
   * would race the scheduler. "terminate" is kept so existing configs stay valid. Default: "auto".
   */
  cancelStrategy?: "auto" | "terminate";
  /** Attach the last lines of the job's CloudWatch log stream to finished results. Default: off. */
  logs?: LogTailOptions;

  /** Suggested client polling interval in milliseconds. Default: 10000. */
  pollIntervalMs?: number;
  /** Give up on an AWS call that has not answered after this many milliseconds. Default: 30000. */
  requestTimeoutMs?: number;
  /** How long status reads are collected into one DescribeJobs call, in milliseconds. Default: 10. */
  describeBatchWindowMs?: number;
  /** SubmitJob calls per second from this adapter (AWS allows 50 per account and Region). Default: 20. */
  submitsPerSecond?: number;
  /**
   * Backoff for throttled or unanswered calls outside status reads (the server's reader retries those).
   * Default: 5 attempts, 200 ms base, 10 s ceiling, full jitter.
   */
  retry?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number };
  /**
   * After a SubmitJob got no answer, wait this long before looking the job up by its name, since ListJobs
   * may lag behind SubmitJob. Default: 1000.
   */
  duplicateCheckDelayMs?: number;

  /**
   * A Batch client to use instead of building one (tests, custom middleware). The adapter never lets its
   * SDK retries resend a SubmitJob whose outcome is unknown, whatever the client's retry settings.
   */
  batchClient?: BatchClient;
  /** A CloudWatch Logs client to use for log tails instead of building one. */
  logsClient?: CloudWatchLogsClient;
  /**
   * Source of the backoff jitter, a number in [0, 1) per wait (tests, deterministic simulations); code only,
   * like the clients. Default: Math.random.
   */
  random?: () => number;
}

/** One parameter the agent may (or must) fill. Batch substitutes it for `Ref::<name>` in the command. */
export interface TemplateParameterOptions {
  /** Shown to the agent in the tool's input schema. */
  description?: string;
  /** Used when the agent leaves the parameter out; makes it optional. */
  default?: string;
  /** Whether the agent must give a value. Default: true unless a default is set. */
  required?: boolean;
  /** The only values accepted. */
  enum?: string[];
  /** A regular expression the whole value must match. */
  pattern?: string;
  /** Longest value accepted. Default: 1024. */
  maxLength?: number;
}

export interface JobTemplateOptions {
  /** The MCP tool name, unique across the server (letters, digits, `_`, `-`, `.`). */
  tool: string;
  title?: string;
  /** What the job does, for the agent. */
  description: string;
  /** Job queue name or ARN. */
  jobQueue: string;
  /** Job definition: `name`, `name:revision` or ARN. */
  jobDefinition: string;
  /** Start of every job name ([A-Za-z0-9_-]); a correlation id is appended. Default: the tool name. */
  jobNamePrefix?: string;
  /** Parameters the agent may set, by name. Default: none. */
  parameters?: Record<string, TemplateParameterOptions>;
  /** Let the agent replace the container command. Default: false. */
  allowCommandOverride?: boolean;
  /** Environment variables the agent may set in the container. Default: none. */
  allowedEnvironment?: string[];
  /** Let the agent ask for vCPUs and memory, up to these ceilings. Default: not allowed. */
  resources?: { maxVcpus?: number; maxMemoryMiB?: number };
  /** Let the agent submit an array job of 2..maxSize children. Default: not allowed. */
  array?: { maxSize: number };
  /** Attempts per job (1..10), overriding the job definition's retry strategy. */
  retryAttempts?: number;
  /** Attempt timeout in seconds (at least 60), overriding the job definition's. */
  timeoutSeconds?: number;
  /** Share identifier for fair-share queues. */
  shareIdentifier?: string;
  /** Tags added to every job. */
  tags?: Record<string, string>;
}

export interface GenericSubmitOptions {
  /** Tool name. Default: "submit_batch_job". */
  tool?: string;
  description?: string;
  /** Queues the agent may choose from (names or ARNs, matched exactly). */
  allowedQueues: string[];
  /** Job definitions the agent may choose from (matched exactly). */
  allowedDefinitions: string[];
  /** Let the agent replace the container command. Default: false. */
  allowCommandOverride?: boolean;
  /** Environment variables the agent may set. Default: none. */
  allowedEnvironment?: string[];
  /** Let the agent submit array jobs up to this size. Default: not allowed. */
  maxArraySize?: number;
  /** Tags added to every job. */
  tags?: Record<string, string>;
}

export interface WatchToolOptions {
  /** Tool name. Default: "watch_job". */
  tool?: string;
  /** Only jobs in these queues (names or ARNs) may be watched. Default: any job the credentials can see. */
  allowedQueues?: string[];
}

export interface LogTailOptions {
  /** Log group of jobs whose definition does not name one. Default: "/aws/batch/job". */
  logGroupName?: string;
  /** Most log lines to read. Default: 50. */
  maxLines?: number;
  /** Most UTF-8 bytes of log text in a result; older lines are dropped first. Default: 4096. */
  maxBytes?: number;
  /**
   * Log lines reach CloudWatch Logs a few seconds after they are written. A job that stopped less than this
   * many milliseconds ago is reported as still working, so its result (and log tail) is read once the log
   * has settled and does not change afterwards. Default: 10000.
   */
  settleMs?: number;
  /**
   * How long after a job stopped a passing CloudWatch Logs fault (throttling, 5xx, no answer, expired
   * credentials) keeps its task working while the tail is retried. Past it the result is given with a
   * note "log unavailable: ..." instead of the tail. At most 540000, below the server's default outage
   * budget (10 min), after which the task would end failed. Default: 300000.
   */
  giveUpMs?: number;
  /** Another endpoint for the CloudWatch Logs API. Default: AWS's own. */
  endpoint?: string;
}
