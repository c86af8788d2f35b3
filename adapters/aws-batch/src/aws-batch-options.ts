import type { BatchClient } from "@aws-sdk/client-batch";
import type { CloudWatchLogsClient } from "@aws-sdk/client-cloudwatch-logs";
import { optionNameOf, z } from "@jobtasks/core";
import { awsRegionPattern } from "./aws-region-source.js";

/** The header an EventBridge connection's API-key authorization sets, unless `eventSecretHeader` names another. */
export const defaultEventSecretHeader = "x-jobtasks-event-secret";

/**
 * The options of the AWS Batch adapter: one schema, used by the `jobtasks` command to validate the `options`
 * block of an `aws-batch` adapter in a config file and by `awsBatch()` itself, so both report the same
 * option paths. The doc comments on its fields are the option reference; the README repeats them.
 */

export const mcpToolNamePattern = /^[A-Za-z0-9_.-]{1,64}$/;
const toolName = z.string().regex(mcpToolNamePattern, "a tool name: 1-64 letters, digits, '_', '-' or '.'");
const jobNamePrefix = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, "1-64 of [A-Za-z0-9_-], starting alphanumeric");
const environmentName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name")
  .refine((name) => !name.startsWith("AWS_BATCH"), "names starting with AWS_BATCH are reserved by AWS Batch");
const nonEmpty = z.string().min(1, "must not be empty");
const tags = z.record(z.string().min(1).max(128), z.string().max(256)).default({});

/** One parameter the agent may (or must) fill. Batch substitutes it for `Ref::<name>` in the command. */
const parameterSchema = z.strictObject({
  /** Shown to the agent in the tool's input schema. */
  description: z.string().optional(),
  /** Used when the agent leaves the parameter out; makes it optional. */
  default: z.string().optional(),
  /** Whether the agent must give a value. Default: true unless a default is set. */
  required: z.boolean().optional(),
  /** The only values accepted. */
  enum: z.array(z.string()).min(1).optional(),
  /** A regular expression the whole value must match. */
  pattern: z.string().optional(),
  /** Longest value accepted. Default: 1024. */
  maxLength: z.number().int().positive().max(8192).default(1024),
});

/** A job template: one submit tool, with a fixed queue and job definition. */
const templateSchema = z.strictObject({
  /** The MCP tool name, unique across the server (letters, digits, `_`, `-`, `.`). */
  tool: toolName,
  title: z.string().optional(),
  /** What the job does, for the agent. */
  description: nonEmpty,
  /** Job queue name or ARN. */
  jobQueue: nonEmpty,
  /** Job definition: `name`, `name:revision` or ARN. */
  jobDefinition: nonEmpty,
  /** Start of every job name ([A-Za-z0-9_-]); a correlation id is appended. Default: the tool name. */
  jobNamePrefix: jobNamePrefix.optional(),
  /** Parameters the agent may set, by name. Default: none. */
  parameters: z.record(z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/, "a parameter name"), parameterSchema).default({}),
  /** Let the agent replace the container command. Default: false. */
  allowCommandOverride: z.boolean().default(false),
  /** Environment variables the agent may set in the container. Default: none. */
  allowedEnvironment: z.array(environmentName).default([]),
  /** Let the agent ask for vCPUs and memory, up to these ceilings. Default: not allowed. */
  resources: z
    .strictObject({ maxVcpus: z.number().positive().optional(), maxMemoryMiB: z.number().int().positive().optional() })
    .optional(),
  /** Let the agent submit an array job of 2..maxSize children. Default: not allowed. */
  array: z.strictObject({ maxSize: z.number().int().min(2).max(10_000) }).optional(),
  /** Attempts per job (1..10), overriding the job definition's retry strategy. */
  retryAttempts: z.number().int().min(1).max(10).optional(),
  /** Attempt timeout in seconds (at least 60), overriding the job definition's. */
  timeoutSeconds: z.number().int().min(60).optional(),
  /** Share identifier for fair-share queues. */
  shareIdentifier: z.string().min(1).optional(),
  /** Tags added to every job. */
  tags,
});

/** A generic submit tool restricted to allow-listed queues and job definitions. */
const genericSubmitSchema = z.strictObject({
  /** Tool name. Default: "submit_batch_job". */
  tool: toolName.default("submit_batch_job"),
  description: z.string().optional(),
  /** Queues the agent may choose from (names or ARNs, matched exactly). */
  allowedQueues: z.array(nonEmpty).min(1, "list at least one queue"),
  /** Job definitions the agent may choose from (matched exactly). */
  allowedDefinitions: z.array(nonEmpty).min(1, "list at least one job definition"),
  /** Let the agent replace the container command. Default: false. */
  allowCommandOverride: z.boolean().default(false),
  /** Environment variables the agent may set. Default: none. */
  allowedEnvironment: z.array(environmentName).default([]),
  /** Let the agent submit array jobs up to this size. Default: not allowed. */
  maxArraySize: z.number().int().min(2).max(10_000).optional(),
  /** Tags added to every job. */
  tags,
});

/** The tool that follows a job submitted elsewhere. */
const watchSchema = z.strictObject({
  /** Tool name. Default: "watch_job". */
  tool: toolName.default("watch_job"),
  /** Only jobs in these queues (names or ARNs) may be watched. Default: any job the credentials can see. */
  allowedQueues: z.array(nonEmpty).min(1).optional(),
});

/** The last lines of a finished job's CloudWatch log stream, attached to its result. */
const logTailSchema = z.strictObject({
  /** Log group of jobs whose definition does not name one. Default: "/aws/batch/job". */
  logGroupName: nonEmpty.default("/aws/batch/job"),
  /** Most log lines to read. Default: 50. */
  maxLines: z.number().int().min(1).max(10_000).default(50),
  /** Most UTF-8 bytes of log text in a result; older lines are dropped first. Default: 4096. */
  maxBytes: z.number().int().min(64).max(1_000_000).default(4096),
  /**
   * Log lines reach CloudWatch Logs a few seconds after they are written. A job that stopped less than this
   * many milliseconds ago is reported as still working, so its result (and log tail) is read once the log
   * has settled and does not change afterwards. Default: 10000.
   */
  settleMs: z.number().int().min(0).max(120_000).default(10_000),
  /**
   * How long after a job stopped a passing CloudWatch Logs fault (throttling, 5xx, no answer, expired
   * credentials) keeps its task working while the tail is retried. Past it the result is given with a
   * note "log unavailable: ..." instead of the tail. At most 540000, below the server's default outage
   * budget (10 min), after which the task would end failed. Default: 300000.
   */
  giveUpMs: z.number().int().min(0).max(540_000).default(300_000),
  /** Another endpoint for the CloudWatch Logs API. Default: AWS's own. */
  endpoint: z.url().optional(),
});

export const awsBatchOptionsSchema = z
  .strictObject({
    /**
     * AWS Region. Default: the SDK's chain (AWS_REGION, AWS_DEFAULT_REGION, the profile's region, then on EC2
     * the instance metadata).
     */
    region: z.string().regex(awsRegionPattern, "an AWS Region such as eu-west-1").optional(),
    /** Named profile from ~/.aws/config (may assume a role). Default: the SDK's chain (AWS_PROFILE, "default"). */
    profile: nonEmpty.optional(),
    /**
     * Static credentials, typically `${AWS_ACCESS_KEY_ID}`-style references in the config file. Default: the
     * SDK's default chain (environment, profile, web identity, container or instance role). Never logged.
     * Not strict: credential objects from the SDK carry bookkeeping keys ($source, expiration) that are
     * dropped here rather than refused.
     */
    credentials: z
      .object({ accessKeyId: nonEmpty, secretAccessKey: nonEmpty, sessionToken: z.string().optional() })
      .optional(),
    /** Another endpoint for the Batch API (a VPC endpoint, a local emulator). Default: AWS's own. */
    endpoint: z.url().optional(),
    /**
     * The secret an EventBridge connection sends with AWS Batch's "Batch Job State Change" events, posted
     * by an API destination to `/hooks/<instance name>`; falls back to BATCH_EVENT_SECRET. Without one the
     * instance takes no events and polls, as always. At least 16 characters. Never logged.
     */
    eventSecret: z.string().min(16, "at least 16 characters").optional(),
    /** The header the connection's API-key authorization puts the secret in. Default: "x-jobtasks-event-secret". */
    eventSecretHeader: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, "a header name: 1-64 letters, digits, '-' or '_'")
      .default(defaultEventSecretHeader),

    /** One submit tool per entry: the agent fills only what the template allows. Default: none. */
    templates: z.array(templateSchema).default([]),
    /** A generic submit tool restricted to allow-listed queues and job definitions. Default: not offered. */
    genericSubmit: genericSubmitSchema.optional(),
    /** The tool that follows a job submitted elsewhere; `false` leaves it out. Default: `{ tool: "watch_job" }`. */
    watch: z.union([z.literal(false), watchSchema]).default({ tool: "watch_job" }),

    /**
     * How tasks/cancel stops a job. Both values send one TerminateJob, which cancels a job that has not
     * reached STARTING and stops one that has (array children included); choosing CancelJob from a prior read
     * would race the scheduler. "terminate" is kept so existing configs stay valid. Default: "auto".
     */
    cancelStrategy: z.enum(["auto", "terminate"]).default("auto"),
    /** Attach the last lines of the job's CloudWatch log stream to finished results. Default: off. */
    logs: logTailSchema.optional(),

    /** Suggested client polling interval in milliseconds. Default: 10000. */
    pollIntervalMs: z.number().int().min(1000).default(10_000),
    /** Give up on an AWS call that has not answered after this many milliseconds. Default: 30000. */
    requestTimeoutMs: z.number().int().min(100).max(600_000).default(30_000),
    /** How long status reads are collected into one DescribeJobs call, in milliseconds. Default: 10. */
    describeBatchWindowMs: z.number().int().min(0).max(1000).default(10),
    /** SubmitJob calls per second from this adapter (AWS allows 50 per account and Region). Default: 20. */
    submitsPerSecond: z.number().positive().max(50).default(20),
    /**
     * Backoff for throttled or unanswered calls outside status reads (the server's reader retries those).
     * Default: 5 attempts, 200 ms base, 10 s ceiling, full jitter.
     */
    retry: z
      .strictObject({
        /** Calls in total, the first included. */
        maxAttempts: z.number().int().min(1).max(20).default(5),
        /** Ceiling of the first wait; doubles with every attempt. */
        baseDelayMs: z.number().int().min(0).default(200),
        /** Ceiling of every wait; at least baseDelayMs. */
        maxDelayMs: z.number().int().min(0).default(10_000),
      })
      .default({ maxAttempts: 5, baseDelayMs: 200, maxDelayMs: 10_000 }),
    /**
     * After a SubmitJob got no answer, wait this long before looking the job up by its name, since ListJobs
     * may lag behind SubmitJob. Default: 1000.
     */
    duplicateCheckDelayMs: z.number().int().min(0).max(60_000).default(1000),
  })
  .superRefine((options, context) => {
    const toolPaths = new Map<string, string>();
    const claim = (tool: string, path: (string | number)[]): void => {
      const earlier = toolPaths.get(tool);
      if (earlier)
        context.addIssue({ code: "custom", path, message: `tool name "${tool}" is already used by ${earlier}` });
      else toolPaths.set(tool, optionNameOf(path));
    };
    options.templates.forEach((template, index) => {
      claim(template.tool, ["templates", index, "tool"]);
      for (const [name, parameter] of Object.entries(template.parameters)) {
        checkParameter(parameter, ["templates", index, "parameters", name], context);
      }
    });
    if (options.genericSubmit) claim(options.genericSubmit.tool, ["genericSubmit", "tool"]);
    if (options.watch) claim(options.watch.tool, ["watch", "tool"]);
    if (options.retry.maxDelayMs < options.retry.baseDelayMs) {
      context.addIssue({
        code: "custom",
        path: ["retry", "maxDelayMs"],
        message: "must be at least retry.baseDelayMs",
      });
    }
  });

function checkParameter(
  parameter: z.output<typeof parameterSchema>,
  path: (string | number)[],
  context: z.RefinementCtx,
): void {
  let pattern: RegExp | undefined;
  if (parameter.pattern !== undefined) {
    try {
      pattern = anchoredPattern(parameter.pattern);
    } catch (error) {
      context.addIssue({
        code: "custom",
        path: [...path, "pattern"],
        message: `not a valid regular expression (${String(error)})`,
      });
    }
  }
  if (parameter.default === undefined) return;
  if (parameter.enum && !parameter.enum.includes(parameter.default)) {
    context.addIssue({ code: "custom", path: [...path, "default"], message: "must be one of the enum values" });
  }
  if (pattern && !pattern.test(parameter.default)) {
    context.addIssue({ code: "custom", path: [...path, "default"], message: "must match the pattern" });
  }
}

/** A template pattern must match the whole value, whatever anchors its author wrote. */
export function anchoredPattern(source: string): RegExp {
  return new RegExp(`^(?:${source})$`);
}

/** The options as written in a config file's `options` block (defaults optional). */
export type AwsBatchConfig = z.input<typeof awsBatchOptionsSchema>;

/** What `awsBatch()` takes: the config options, plus what only code can pass (not validated by the schema). */
export type AwsBatchOptions = AwsBatchConfig & {
  /**
   * A Batch client to use instead of building one (tests, custom middleware). The adapter never lets its
   * SDK retries resend a SubmitJob whose outcome is unknown, whatever the client's retry settings.
   */
  batchClient?: BatchClient;
  /** A CloudWatch Logs client to use for log tails instead of building one. */
  logsClient?: CloudWatchLogsClient;
  /**
   * Source of the backoff jitter, a number in [0, 1) per wait (tests, deterministic simulations). Default:
   * Math.random.
   */
  random?: () => number;
};

export type TemplateParameterOptions = z.input<typeof parameterSchema>;
export type JobTemplateOptions = z.input<typeof templateSchema>;
export type GenericSubmitOptions = z.input<typeof genericSubmitSchema>;
export type WatchToolOptions = z.input<typeof watchSchema>;
export type LogTailOptions = z.input<typeof logTailSchema>;

/** The options with every default applied, as the factory and `adapterDefinition.create` work on them. */
export type ResolvedAwsBatchOptions = z.output<typeof awsBatchOptionsSchema>;
export type ResolvedJobTemplate = ResolvedAwsBatchOptions["templates"][number];
export type ResolvedTemplateParameter = ResolvedJobTemplate["parameters"][string];
export type ResolvedGenericSubmit = NonNullable<ResolvedAwsBatchOptions["genericSubmit"]>;
export type ResolvedWatchTool = Exclude<ResolvedAwsBatchOptions["watch"], false>;
export type ResolvedLogTail = NonNullable<ResolvedAwsBatchOptions["logs"]>;
