import { z } from "@jobtasks/core";
import { authSettingsSchema } from "./auth-config-schema.js";
import {
  clientsWithoutTasksModes,
  defaultPollIntervalMs,
  isOrigin,
  originExpectation,
  readerDefaults,
} from "@jobtasks/server";

const adapterInstanceName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "use 1-64 letters, digits, '_' or '-'");

/** One adapter instance: a built-in `kind`, or your own package or file exporting `adapterDefinition`. */
export const adapterEntrySchema = z
  .strictObject({
    name: adapterInstanceName.describe("Instance name; sealed into task ids, so keep it stable"),
    kind: z.string().min(1).optional().describe("Built-in adapter: demo, github-actions, aws-batch, rest or gitlab-ci"),
    module: z
      .string()
      .min(1)
      .optional()
      .describe("Your own adapter: a package name or a path (relative to this file) exporting adapterDefinition"),
    options: z.record(z.string(), z.unknown()).default({}).describe("The adapter's own options (see its README)"),
  })
  .refine((entry) => (entry.kind === undefined) !== (entry.module === undefined), {
    message: "give exactly one of kind or module",
  });

/** Shared state for replicas (see redis-settings.ts); absent, each process keeps its own. */
export const redisSettingsSchema = z.strictObject({
  url: z
    .string()
    .refine((url) => /^rediss?:\/\/[^\s]+$/.test(url), "expected a redis:// or rediss:// URL")
    .optional()
    .describe(
      "redis:// or rediss:// (TLS) URL of the Redis (or Valkey) the replicas share, with an optional user and password; JOBTASKS_REDIS_URL overrides it, JOBTASKS_REDIS_PASSWORD gives the password apart. Never logged",
    ),
  keyPrefix: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, "use 1-64 letters, digits, '_', '.' or '-'")
    .default("main")
    .describe("Keys are jobtasks:<keyPrefix>:…, so two deployments can share one Redis"),
  commandTimeoutMs: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(50)
    .describe("A Redis command slower than this counts as Redis being unavailable: the replica answers on its own"),
});

/** `server.metrics`: Prometheus metrics at /metrics, off unless this block is present. */
export const metricsSettingsSchema = z
  .strictObject({
    port: z
      .number()
      .int()
      .min(0)
      .max(65535)
      .optional()
      .describe("Serve /metrics on this port instead of the MCP port (needed under stdio)"),
    host: z.string().min(1).optional().describe("The address of that port. Default: the MCP server's host"),
    token: z
      .string()
      .min(16, "use at least 16 characters")
      .optional()
      .describe("A bearer token every scrape must send (write ${METRICS_TOKEN}); separate from JOBTASKS_AUTH_TOKENS"),
  })
  .describe("Prometheus metrics at /metrics (OpenTelemetry metrics through the Prometheus exporter); off when absent");

/** `server.tracing`: how requests are traced, once the OTEL_* variables turn traces on. */
export const tracingSettingsSchema = z
  .strictObject({
    pollsFromMemory: z
      .boolean()
      .default(false)
      .describe(
        "Give a span to every tasks/get, also one answered without asking the upstream (a cache hit, a Retry-After hold, a finished job). Off (the default), such a poll is traced only when its caller's traceparent is sampled or it fails, and the metrics count it either way; on, tracing costs each of them about as much CPU as the poll itself",
      ),
  })
  .describe("How requests are traced when the OTEL_* variables turn traces on");

export const serverSettingsSchema = z.strictObject({
  name: z.string().min(1).default("jobtasks").describe("Server name, reported in server/discover"),
  instructions: z
    .string()
    .optional()
    .describe(
      "What the tools do, for the model; reported in initialize and server/discover, followed by how to follow a job in the calls the client has",
    ),
  pollIntervalMs: z
    .number()
    .int()
    .min(100)
    .default(defaultPollIntervalMs)
    .describe("Polling interval suggested to clients when an adapter has none"),
  snapshotCacheMs: z
    .number()
    .int()
    .min(0)
    .default(readerDefaults.snapshotCacheMs)
    .describe("How long one upstream status read may answer other polls of the same job"),
  eventSnapshotCacheMs: z
    .number()
    .int()
    .min(0)
    .default(readerDefaults.eventSnapshotCacheMs)
    .describe(
      "How long the cached snapshot of a job of an adapter instance whose upstream events arrive answers polls, from its first read (events bring its changes; after this long it is read again, or later where the adapter's request budget asks for it)",
    ),
  eventsLiveForMs: z
    .number()
    .int()
    .min(1000)
    .default(readerDefaults.eventsLiveForMs)
    .describe(
      "How long after an adapter instance's last verified delivery its upstream events count as arriving; past it (a webhook misconfigured or broken) its jobs are polled as without events, and a warning says so",
    ),
  upstreamRetryBudgetMs: z
    .number()
    .int()
    .min(0)
    .default(readerDefaults.upstreamRetryBudgetMs)
    .describe("How long an upstream may stay unreachable before its tasks end failed"),
  clientsWithoutTasks: z
    .enum(clientsWithoutTasksModes)
    .default("handles")
    .describe(
      'What a client that does not declare the tasks extension gets from a job tool: "handles" (a task id it follows with task_status, task_answer and task_cancel), "wait" (the plain result of the tools listed in synchronousWaitMs, -32021 for the others) or "refuse" (-32021)',
    ),
  synchronousWaitMs: z
    .record(z.string(), z.number().int().min(1).max(600_000))
    .default({})
    .describe(
      "Per tool name, for clients without the tasks extension. With handles: wait this long for a quick finish before answering with a handle (at most 30 s are used). With wait: wait up to this long and answer with the plain result; a job that needs input, outlives the bound or whose client stops waiting is cancelled and reported as a tool error.",
    ),
  formsFromTaskStatus: z
    .boolean()
    .default(false)
    .describe(
      "Let task_status show a job's question (an approval) as a form to a client without the tasks extension that declared form elicitation (over stdio). Off by default: some hosts decline every form without showing it (codex exec), which would refuse an approval nobody saw; the question then goes to the model, which answers it with task_answer.",
    ),
  logLevel: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .optional()
    .describe(
      "Log level (JOBTASKS_LOG_LEVEL overrides it). Default info over HTTP and warn over stdio, where hosts such as Claude Code file every stderr line as an error",
    ),
  redis: redisSettingsSchema
    .optional()
    .describe(
      "Share snapshots, answers, upstream holds, webhook deliveries and events between replicas through Redis; without it (and without JOBTASKS_REDIS_URL) each process keeps its own",
    ),
  metrics: metricsSettingsSchema.optional(),
  tracing: tracingSettingsSchema.optional(),
  allowedOrigins: z
    .array(z.string().refine(isOrigin, originExpectation))
    .default([])
    .describe(
      "Origins whose browser pages may call the HTTP endpoint: a request carrying another Origin gets 403 (a loopback server also accepts loopback origins)",
    ),
  auth: authSettingsSchema
    .optional()
    .describe(
      "Who may call over HTTP and what each caller may do: static tokens (JOBTASKS_AUTH_TOKENS) or OAuth access tokens, scopes per tool and for approvals. stdio is always the local user, with every scope",
    ),
});

export const configFileSchema = z.strictObject({
  /** Where an editor finds the JSON Schema of this file (a JSON config's way of saying so). */
  $schema: z.string().optional(),
  server: serverSettingsSchema
    // Parsed once, as the module loads: without zod's compiled fast path, whose building would cost more.
    .default(serverSettingsSchema.parse({}, { jitless: true }))
    .describe("Settings of the MCP server; every field is optional"),
  adapters: z
    .array(adapterEntrySchema)
    .min(1, "list at least one adapter")
    .describe("The adapter instances whose tools this server serves"),
});

export type ConfigFile = z.infer<typeof configFileSchema>;
export type ServerSettings = z.infer<typeof serverSettingsSchema>;
export type AdapterEntry = z.infer<typeof adapterEntrySchema>;
export type { AuthSettings } from "./auth-config-schema.js";
