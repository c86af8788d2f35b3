import { z } from "zod";

// The zod shape of AwsBatchOptions (without the code-only options), used by the `jobtasks` command to
// validate a config file and by `awsBatch()` itself, so both report the same option paths. Defaults are
// filled here; the doc comments live on AwsBatchOptions.

export const mcpToolNamePattern = /^[A-Za-z0-9_.-]{1,64}$/;
const toolName = z.string().regex(mcpToolNamePattern, "a tool name: 1-64 letters, digits, '_', '-' or '.'");
const jobNamePrefix = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, "1-64 of [A-Za-z0-9_-], starting alphanumeric");
const environmentName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name")
  .refine((name) => !name.startsWith("AWS_BATCH"), "names starting with AWS_BATCH are reserved by AWS Batch");
const nonEmpty = z.string().min(1, "must not be empty");
const tags = z.record(z.string().min(1).max(128), z.string().max(256)).default({});

const parameterSchema = z.strictObject({
  description: z.string().optional(),
  default: z.string().optional(),
  required: z.boolean().optional(),
  enum: z.array(z.string()).min(1).optional(),
  pattern: z.string().optional(),
  maxLength: z.number().int().positive().max(8192).default(1024),
});

const templateSchema = z.strictObject({
  tool: toolName,
  title: z.string().optional(),
  description: nonEmpty,
  jobQueue: nonEmpty,
  jobDefinition: nonEmpty,
  jobNamePrefix: jobNamePrefix.optional(),
  parameters: z.record(z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/, "a parameter name"), parameterSchema).default({}),
  allowCommandOverride: z.boolean().default(false),
  allowedEnvironment: z.array(environmentName).default([]),
  resources: z
    .strictObject({ maxVcpus: z.number().positive().optional(), maxMemoryMiB: z.number().int().positive().optional() })
    .optional(),
  array: z.strictObject({ maxSize: z.number().int().min(2).max(10_000) }).optional(),
  retryAttempts: z.number().int().min(1).max(10).optional(),
  timeoutSeconds: z.number().int().min(60).optional(),
  shareIdentifier: z.string().min(1).optional(),
  tags,
});

const genericSubmitSchema = z.strictObject({
  tool: toolName.default("submit_batch_job"),
  description: z.string().optional(),
  allowedQueues: z.array(nonEmpty).min(1, "list at least one queue"),
  allowedDefinitions: z.array(nonEmpty).min(1, "list at least one job definition"),
  allowCommandOverride: z.boolean().default(false),
  allowedEnvironment: z.array(environmentName).default([]),
  maxArraySize: z.number().int().min(2).max(10_000).optional(),
  tags,
});

const watchSchema = z.strictObject({
  tool: toolName.default("watch_job"),
  allowedQueues: z.array(nonEmpty).min(1).optional(),
});

export const awsBatchOptionsSchema = z
  .strictObject({
    region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, "an AWS Region such as eu-west-1").optional(),
    profile: nonEmpty.optional(),
    // Not strict: credential objects from the SDK carry bookkeeping keys ($source, expiration) that are
    // dropped here rather than refused.
    credentials: z
      .object({ accessKeyId: nonEmpty, secretAccessKey: nonEmpty, sessionToken: z.string().optional() })
      .optional(),
    endpoint: z.url().optional(),
    templates: z.array(templateSchema).default([]),
    genericSubmit: genericSubmitSchema.optional(),
    watch: z.union([z.literal(false), watchSchema]).default({ tool: "watch_job" }),
    cancelStrategy: z.enum(["auto", "terminate"]).default("auto"),
    logs: z
      .strictObject({
        logGroupName: nonEmpty.default("/aws/batch/job"),
        maxLines: z.number().int().min(1).max(10_000).default(50),
        maxBytes: z.number().int().min(64).max(1_000_000).default(4096),
        settleMs: z.number().int().min(0).max(120_000).default(10_000),
        // Below the server's default outage budget (10 min), which would otherwise end the task failed.
        giveUpMs: z.number().int().min(0).max(540_000).default(300_000),
        endpoint: z.url().optional(),
      })
      .optional(),
    pollIntervalMs: z.number().int().min(1000).default(10_000),
    requestTimeoutMs: z.number().int().min(100).max(600_000).default(30_000),
    describeBatchWindowMs: z.number().int().min(0).max(1000).default(10),
    submitsPerSecond: z.number().positive().max(50).default(20),
    retry: z
      .strictObject({
        maxAttempts: z.number().int().min(1).max(20).default(5),
        baseDelayMs: z.number().int().min(0).default(200),
        maxDelayMs: z.number().int().min(0).default(10_000),
      })
      .default({ maxAttempts: 5, baseDelayMs: 200, maxDelayMs: 10_000 }),
    duplicateCheckDelayMs: z.number().int().min(0).max(60_000).default(1000),
  })
  .superRefine((options, context) => {
    const toolPaths = new Map<string, string>();
    const claim = (tool: string, path: (string | number)[]): void => {
      const earlier = toolPaths.get(tool);
      if (earlier) context.addIssue({ code: "custom", path, message: `tool name "${tool}" is already used by ${earlier}` });
      else toolPaths.set(tool, path.join("."));
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
      context.addIssue({ code: "custom", path: ["retry", "maxDelayMs"], message: "must be at least retry.baseDelayMs" });
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
      context.addIssue({ code: "custom", path: [...path, "pattern"], message: `not a valid regular expression (${String(error)})` });
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

export type ResolvedAwsBatchOptions = z.output<typeof awsBatchOptionsSchema>;
export type ResolvedJobTemplate = ResolvedAwsBatchOptions["templates"][number];
export type ResolvedTemplateParameter = ResolvedJobTemplate["parameters"][string];
export type ResolvedGenericSubmit = NonNullable<ResolvedAwsBatchOptions["genericSubmit"]>;
export type ResolvedWatchTool = Exclude<ResolvedAwsBatchOptions["watch"], false>;
export type ResolvedLogTail = NonNullable<ResolvedAwsBatchOptions["logs"]>;
