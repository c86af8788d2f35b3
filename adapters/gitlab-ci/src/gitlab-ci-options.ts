import { z } from "@jobtasks/core";

/**
 * The options of one GitLab CI adapter instance: what the `options` block of a config file holds, and what
 * `gitlabCi(options)` takes besides its programmatic extras (an undici dispatcher, a clock).
 */

/** A numeric project id ("278964") or a full path ("group/subgroup/project"). */
const projectPattern = /^(\d+|[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+)$/;

export const gitlabCiOptionsSchema = z.strictObject({
  /** A personal, project or group access token with the `api` scope; falls back to GITLAB_TOKEN. */
  token: z.string().min(1).optional(),
  /**
   * The secret token of the project or group hook that sends this instance GitLab's Pipeline, Job and
   * Deployment Hooks at `/hooks/<instance name>`; falls back to GITLAB_WEBHOOK_SECRET. Without one the
   * instance takes no events and polls, as always. At least 16 characters.
   */
  webhookSecret: z.string().min(16, "at least 16 characters").optional(),
  /** REST API v4 base URL (default https://gitlab.com/api/v4). Self-managed: https://HOST/api/v4. */
  baseUrl: z.url({ protocol: /^https?$/ }).default("https://gitlab.com/api/v4"),
  /** The only projects the tools may touch: numeric ids or full paths ("group/project"). */
  projects: z.array(z.string().regex(projectPattern, 'expected a numeric id or "group/project"')).min(1),
  /** Prepended to the tool names (create_pipeline, watch_pipeline, retry_pipeline), e.g. "gitlab_" (default ""). */
  toolPrefix: z
    .string()
    .regex(/^[A-Za-z0-9_-]*$/, "letters, digits, _ and - only")
    .default(""),
  /** Ref a new pipeline runs on when the agent names none (default "main"). */
  defaultRef: z.string().min(1).default("main"),
  /** Whether create_pipeline accepts CI/CD variables from the agent (default true). */
  allowVariables: z.boolean().default(true),
  /** Suggested client polling interval (default 10 000 ms); slowed down when the rate limit runs low and during an outage. */
  pollIntervalMs: z.number().int().positive().default(10_000),
  /** How long the instance keeps pipelines, in days; becomes the task's ttl (default: null, forever). */
  retentionDays: z.number().int().positive().nullable().default(null),
  /** One HTTP request's deadline (default 15 000 ms). */
  requestTimeoutMs: z.number().int().positive().default(15_000),
  /** Budget for the failed-job traces put in a result: small enough for a model's context. */
  logs: z
    .strictObject({
      /** Last lines kept per failed job (default 30). */
      maxLinesPerJob: z.number().int().nonnegative().default(30),
      /** Total bytes of trace text in one result (default 4096). */
      maxBytes: z.number().int().nonnegative().default(4096),
      /** Failed jobs whose traces are downloaded, one request each (default 3). */
      maxFailedJobs: z.number().int().nonnegative().default(3),
      /** Bytes read of one trace at most (default 8 MiB); only the end is kept while reading. */
      maxReadBytes: z
        .number()
        .int()
        .positive()
        .default(8 * 1024 * 1024),
      /** Time spent reading the traces of one pipeline at most, all jobs together (default 10 000 ms). */
      maxReadMs: z.number().int().positive().max(25_000).default(10_000),
    })
    .default({
      maxLinesPerJob: 30,
      maxBytes: 4096,
      maxFailedJobs: 3,
      maxReadBytes: 8 * 1024 * 1024,
      maxReadMs: 10_000,
    }),
  /**
   * For clients without the tasks extension. With the server's `clientsWithoutTasks: handles` (its
   * default) they always get the tools: this is how long to wait for a quick finish before answering with
   * a handle they follow through task_status (unset: the handle at once). With `wait`: how long the server
   * waits for the pipeline before answering with the plain result (unset: such clients get -32021).
   */
  synchronousWaitMs: z.number().int().positive().optional(),
});

/** The options as written in a config file (defaults optional). */
export type GitlabCiConfig = z.input<typeof gitlabCiOptionsSchema>;
/** The options with every default applied. */
export type ResolvedGitlabCiConfig = z.output<typeof gitlabCiOptionsSchema>;
