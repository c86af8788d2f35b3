import { z } from "@jobtasks/core";

/**
 * The options of one GitHub Actions adapter instance: what the `options` block of a config file holds, and
 * what `githubActions(options)` takes. Everything here is plain data; the programmatic extras (an injected
 * fetch, a request hook, a clock) are added by `GithubActionsOptions` in github-actions-adapter.ts. The
 * doc comment of each field is its reference; the README's options table repeats them.
 */

const repositoryPattern = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const toolNamePattern = /^[A-Za-z0-9_-]{1,64}$/;

const workflowInputSchema = z.strictObject({
  /** Shown to the agent in the tool's input schema. */
  description: z.string().optional(),
  /** The agent must give it (default false). */
  required: z.boolean().optional(),
  /** The only values the agent may pick (a `choice` input). */
  options: z.array(z.string()).min(1).optional(),
  /** Used when the agent leaves it out; GitHub applies the workflow's own default otherwise. */
  default: z.string().optional(),
});

const workflowToolSchema = z.strictObject({
  /** Tool name, unique across the server, e.g. "run_deploy". */
  tool: z.string().regex(toolNamePattern, "letters, digits, _ and - only, at most 64 characters"),
  /** "owner/repo". */
  repository: z.string().regex(repositoryPattern, 'expected "owner/repo"'),
  /** Workflow file name ("deploy.yml") or numeric workflow id. */
  workflow: z.string().min(1),
  /** Git ref to run on when the agent names none (default "main"). */
  ref: z.string().min(1).default("main"),
  /** Whether the agent may choose another ref (default true). */
  allowRefOverride: z.boolean().default(true),
  /** Tool description for the agent; a generic one is written when left out. */
  description: z.string().optional(),
  /**
   * The workflow's `workflow_dispatch` inputs the agent may set. When given, the tool's input schema lists
   * exactly these; when left out, the agent may pass any string inputs.
   */
  inputs: z.record(z.string(), workflowInputSchema).optional(),
  /**
   * Name of a workflow input that the workflow shows in its `run-name`. Needed only where the dispatch
   * answers without a run id (GitHub Enterprise Server 3.20 and older): the adapter passes a unique value
   * in it and finds the run by that value. Overrides `dispatch.correlationInput`.
   */
  correlationInput: z.string().min(1).optional(),
});

const githubAppSchema = z.strictObject({
  /** The App's id (or GITHUB_APP_ID). */
  appId: z.union([z.string().min(1), z.number().int().positive()]).optional(),
  /** The App's PEM private key (or GITHUB_APP_PRIVATE_KEY). */
  privateKey: z.string().min(1).optional(),
  /** The installation to act as (or GITHUB_APP_INSTALLATION_ID). */
  installationId: z.union([z.string().min(1), z.number().int().positive()]).optional(),
});

export const githubActionsOptionsSchema = z.strictObject({
  /** A token (PAT or GITHUB_TOKEN-style); falls back to the GITHUB_TOKEN environment variable. */
  token: z.string().min(1).optional(),
  /**
   * The secret of the webhook that sends this instance GitHub's workflow_run, workflow_job and
   * deployment_review events at `/hooks/<instance name>`; falls back to GITHUB_WEBHOOK_SECRET. Without
   * one the instance takes no events and polls, as always. At least 16 characters.
   */
  webhookSecret: z.string().min(16, "at least 16 characters").optional(),
  /** Authenticate as a GitHub App installation instead of a token. */
  app: githubAppSchema.optional(),
  /**
   * REST API base URL; falls back to GITHUB_API_URL, then https://api.github.com.
   * For GitHub Enterprise Server: https://HOST/api/v3.
   */
  baseUrl: z.url().optional(),
  /**
   * Repositories ("owner/repo") whose runs `watch_run` and `rerun_run` may touch. Defaults to the
   * repositories named in `workflows` and `allowedWorkflows`.
   */
  repositories: z.array(z.string().regex(repositoryPattern, 'expected "owner/repo"')).optional(),
  /** One dispatch tool per entry. */
  workflows: z.array(workflowToolSchema).default([]),
  /**
   * Enables the generic `run_workflow` tool for these workflows: "owner/repo/file.yml", or "owner/repo/*"
   * for every workflow of a repository.
   */
  allowedWorkflows: z
    .array(
      z
        .string()
        .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+\/[^/]+$/, 'expected "owner/repo/workflow.yml" or "owner/repo/*"'),
    )
    .default([]),
  /** Prepended to the built-in tool names (watch_run, rerun_run, run_workflow), e.g. "ci_" (default ""). */
  toolPrefix: z
    .string()
    .regex(/^[A-Za-z0-9_-]*$/, "letters, digits, _ and - only")
    .default(""),
  /** Suggested client polling interval (default 10 000 ms). */
  pollIntervalMs: z.number().int().positive().default(10_000),
  /** How long GitHub keeps run records here, in days; becomes the task's ttl (default 90). */
  retentionDays: z.number().int().positive().default(90),
  /** Budget for the failed-step logs put in a result: small enough for a model's context. */
  logs: z
    .strictObject({
      /** Last lines kept per failed step (default 30). */
      maxLinesPerStep: z.number().int().nonnegative().default(30),
      /** Total bytes of log text in one result (default 4096). */
      maxBytes: z.number().int().nonnegative().default(4096),
      /** Failed jobs whose logs are downloaded, one request each (default 3). */
      maxFailedJobs: z.number().int().nonnegative().default(3),
      /**
       * Bytes read of one job log at most (default 50 MiB). Reading stops at exactly this byte, so every
       * replica keeps the same text; a step past it gets what was read, with a note.
       */
      maxReadBytes: z.number().int().positive().default(52_428_800),
      /**
       * Time spent downloading the logs of one finished run at most, all jobs together (default 15 000 ms;
       * at most 25 000, to stay under the server's 30 s deadline for a status read). What was read is kept,
       * with a note.
       */
      maxReadMs: z.number().int().positive().max(25_000).default(15_000),
    })
    .default({ maxLinesPerStep: 30, maxBytes: 4096, maxFailedJobs: 3, maxReadBytes: 52_428_800, maxReadMs: 15_000 }),
  /** How a dispatch finds its run. */
  dispatch: z
    .strictObject({
      /** Ask GitHub for the run id in the dispatch answer (default true). */
      returnRunDetails: z.boolean().default(true),
      /** Default correlation input for workflows that do not name their own (see workflows[].correlationInput). */
      correlationInput: z.string().min(1).optional(),
      /** How long to look for a dispatched run that came back without an id (default 60 000 ms). */
      correlationTimeoutMs: z.number().int().positive().default(60_000),
      /** First wait between look-ups; grows ×1.5 up to 10 s (default 2000 ms). */
      correlationPollMs: z.number().int().positive().default(2_000),
    })
    .default({ returnRunDetails: true, correlationTimeoutMs: 60_000, correlationPollMs: 2_000 }),
  /**
   * How long `watch_run` with a commit waits for that commit's run to appear, and `rerun_run` for the new
   * attempt (default 60 000 ms).
   */
  watchCommitTimeoutMs: z.number().int().positive().default(60_000),
  /** First wait between look-ups for a commit's run or a new re-run attempt (default 2000 ms). */
  lookupPollMs: z.number().int().positive().default(2_000),
  /**
   * After a cancel, force-cancel a run still stopping this long after its first job was cancelled
   * (stops `always()` jobs too), sent at most in one window per 10 min (see the README). null: never (default).
   */
  forceCancelAfterMs: z.number().int().positive().nullable().default(null),
  /**
   * For clients without the tasks extension. With the server's `clientsWithoutTasks: handles` (the
   * default), how long to wait for a quick finish before answering with a handle to follow (at most 30 s
   * are used; unset: the handle at once). With `wait`, the server waits for the run up to this long and
   * answers with the plain result; a run that needs an approval, is still going when the bound ends, or
   * whose client stops waiting first is cancelled and reported as a tool error (nobody could follow it
   * without a task id); unset, such clients get error -32021, since CI runs outlast most client timeouts.
   */
  synchronousWaitMs: z.number().int().positive().optional(),
  /**
   * Longest rate-limit wait done inside one request outside status reads (which report every limit to the
   * server at once); longer ones are reported to the client (default 10 000 ms).
   */
  maxRateLimitWaitMs: z.number().int().nonnegative().default(10_000),
  /**
   * Retries of a GET that failed with a server error or a broken connection, outside status reads (the
   * server's reader retries those) (default 2); the adapter never repeats a POST.
   */
  requestRetries: z.number().int().nonnegative().max(10).default(2),
});

/** The options as written in a config file. */
export type GithubActionsConfig = z.input<typeof githubActionsOptionsSchema>;
/** The options with every default applied. */
export type ResolvedGithubActionsConfig = z.output<typeof githubActionsOptionsSchema>;
export type WorkflowToolConfig = z.output<typeof workflowToolSchema>;
export type WorkflowInputConfig = z.output<typeof workflowInputSchema>;
