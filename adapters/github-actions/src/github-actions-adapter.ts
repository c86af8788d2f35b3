import {
  AdapterConfigError,
  configErrorFromIssues,
  UpstreamError,
  type JobAdapterV1,
  type JobTool,
} from "@jobtasks/core";
import { createGithubClient, type GithubCredentials, type UpstreamRequestEvent } from "./create-github-client.js";
import { createGithubApi } from "./github-actions-api.js";
import {
  githubActionsOptionsSchema,
  type GithubActionsConfig,
  type ResolvedGithubActionsConfig,
} from "./github-actions-options.js";
import { RateBudget } from "./rate-budget.js";
import { readRunSnapshot } from "./read-run-snapshot.js";
import { createRerunRunTool } from "./rerun-run-tool.js";
import { respondToDeployments } from "./respond-to-deployments.js";
import { runRefSchema, type RunRef } from "./run-ref.js";
import { createRunWorkflowTool } from "./run-workflow-tool.js";
import type { ToolDependencies } from "./tool-dependencies.js";
import { createWatchRunTool } from "./watch-run-tool.js";
import { createWorkflowTool } from "./workflow-tool.js";
import { githubWebhookEvents } from "./github-webhook-events.js";
import { RunMemory, rememberingReads } from "./run-memory.js";

/**
 * Options of `githubActions(options)`: the config-file options (see github-actions-options.ts for each
 * field and its default) plus programmatic hooks that a config file cannot carry.
 */
export type GithubActionsOptions = GithubActionsConfig & {
  /** The transport (default: the global fetch). Tests and proxies inject their own. */
  fetch?: typeof fetch;
  /** Called for every HTTP request that reaches GitHub, 304s included: for metrics and tests. */
  onUpstreamRequest?: (event: UpstreamRequestEvent) => void;
  /** The clock (default Date.now); tests move it to exercise grace periods. */
  now?: () => number;
};

export type Environment = Readonly<Record<string, string | undefined>>;

/** Build a GitHub Actions adapter. Throws AdapterConfigError naming the option at fault. */
export function githubActions(
  options: GithubActionsOptions,
  environment: Environment = process.env,
): JobAdapterV1<RunRef> {
  const { fetch: injectedFetch, onUpstreamRequest, now: injectedNow, ...configOptions } = options;
  const resolved = resolveGithubActionsOptions(configOptions, environment);
  const { config } = resolved;
  const credentials = createCredentialList(resolved.credentials, resolved.webhookSecret);
  const now = injectedNow ?? Date.now;
  const budget = new RateBudget();
  const octokit = createGithubClient({
    credentials: resolved.credentials,
    baseUrl: resolved.baseUrl,
    budget,
    maxRateLimitWaitMs: config.maxRateLimitWaitMs,
    requestRetries: config.requestRetries,
    ...(injectedFetch ? { fetch: injectedFetch } : {}),
    ...(onUpstreamRequest ? { onUpstreamRequest } : {}),
    ...(resolved.credentials.kind === "app" ? { onCredential: credentials.remember } : {}),
  });
  const api = createGithubApi(octokit);
  const dependencies: ToolDependencies = { api, config, repositories: resolved.repositories, now };

  const tools: JobTool<RunRef>[] = [
    ...config.workflows.map((workflow) => createWorkflowTool(dependencies, workflow)),
    ...(resolved.toolNames.runWorkflow ? [createRunWorkflowTool(dependencies, resolved.toolNames.runWorkflow)] : []),
    createWatchRunTool(dependencies, resolved.toolNames.watchRun),
    createRerunRunTool(dependencies, resolved.toolNames.rerunRun),
  ].map((tool) =>
    config.synchronousWaitMs === undefined ? tool : { ...tool, synchronousWaitMs: config.synchronousWaitMs },
  );
  // Status reads go out once each: the server's reader is their only retry loop.
  // With webhooks, what each read said of a run's jobs lets a workflow_job delivery give its snapshot.
  const runMemory = resolved.webhookSecret !== undefined ? new RunMemory() : undefined;
  const plainStatusApi = createGithubApi(octokit, { statusReads: true });
  const statusApi = runMemory ? rememberingReads(plainStatusApi, runMemory) : plainStatusApi;
  const snapshotDependencies = {
    api: statusApi,
    budget,
    now,
    settings: {
      logs: config.logs,
      pollIntervalMs: config.pollIntervalMs,
      forceCancelAfterMs: config.forceCancelAfterMs,
    },
  };

  return {
    specificationVersion: "v1",
    kind: "github-actions",
    tools,
    pollIntervalMs: config.pollIntervalMs,
    retentionMs: config.retentionDays * 24 * 60 * 60 * 1000,
    // The server checks every ref against it before the methods below see one.
    refSchema: runRefSchema,
    // A getter: the core asks on every call, so App installation tokens are redacted as they renew.
    secrets: credentials.current,
    ...(resolved.webhookSecret !== undefined && runMemory
      ? {
          events: githubWebhookEvents(resolved.webhookSecret, {
            memory: runMemory,
            budget,
            snapshots: snapshotDependencies,
          }),
        }
      : {}),

    doGetStatus(ref, context) {
      return readRunSnapshot(snapshotDependencies, ref, context);
    },

    async doRespond(ref, responses, context) {
      await respondToDeployments(api, ref, responses, context);
    },

    async doCancel(ref, context) {
      // Cancel acts on the run's current attempt; a finished pinned attempt means a later re-run owns the run now.
      const attempt = await api.getRunAttempt(ref, { signal: context.signal, notFoundMeansGone: true });
      if (attempt.status === "completed") return;
      try {
        await api.cancelRun(ref, false, { signal: context.signal });
      } catch (error) {
        // 409: the run can no longer be cancelled (it is finishing); the answer is an acknowledgement anyway.
        if (error instanceof UpstreamError && error.httpStatus === 409) {
          context.logger.debug({ runId: ref.runId }, "cancel came too late (409)");
          return;
        }
        throw error;
      }
    },
  };
}

/**
 * The credentials this adapter holds, for the core to redact: the configured token or App private key, and
 * the App's short-lived installation tokens as they are sent. Only the newest few of those are kept: a
 * renewed installation token replaces an expired one.
 */
function createCredentialList(configured: GithubCredentials, webhookSecret: string | undefined) {
  const fixed = [configured.kind === "token" ? configured.token : configured.privateKey];
  if (webhookSecret !== undefined) fixed.push(webhookSecret);
  const kept = [...fixed];
  const keptInstallationTokens = 8;
  return {
    current: (): readonly string[] => kept,
    remember(credential: string): void {
      if (kept.includes(credential)) return;
      kept.push(credential);
      if (kept.length > fixed.length + keptInstallationTokens) kept.splice(fixed.length, 1);
    },
  };
}

interface ResolvedGithubActionsOptions {
  config: ResolvedGithubActionsConfig;
  credentials: GithubCredentials;
  baseUrl: string;
  /** "owner/repo", lower case. */
  repositories: string[];
  toolNames: { watchRun: string; rerunRun: string; runWorkflow: string | undefined };
  /** The webhook's secret, when this instance takes GitHub's events. */
  webhookSecret: string | undefined;
}

/**
 * Validate the options (the config-file part) and fill what may come from the environment. Every error
 * names the option, and the environment variable it may come from.
 */
function resolveGithubActionsOptions(options: unknown, environment: Environment): ResolvedGithubActionsOptions {
  const parsed = githubActionsOptionsSchema.safeParse(options, { jitless: true });
  if (!parsed.success) throw configErrorFromIssues(parsed.error);
  const config = parsed.data;

  const credentials = resolveCredentials(config, environment);
  const baseUrl = config.baseUrl ?? environment.GITHUB_API_URL ?? "https://api.github.com";
  if (!URL.canParse(baseUrl)) throw new AdapterConfigError("baseUrl", "not a URL (from the option, or GITHUB_API_URL)");

  const repositories = new Set((config.repositories ?? []).map((entry) => entry.toLowerCase()));
  if (config.repositories === undefined) {
    for (const workflow of config.workflows) repositories.add(workflow.repository.toLowerCase());
    for (const entry of config.allowedWorkflows) repositories.add(entry.split("/").slice(0, 2).join("/").toLowerCase());
  }
  if (repositories.size === 0) {
    throw new AdapterConfigError(
      "repositories",
      'name at least one "owner/repo" (or configure workflows / allowedWorkflows)',
    );
  }

  const toolNames = {
    watchRun: `${config.toolPrefix}watch_run`,
    rerunRun: `${config.toolPrefix}rerun_run`,
    runWorkflow: config.allowedWorkflows.length > 0 ? `${config.toolPrefix}run_workflow` : undefined,
  };
  const seen = new Set<string>([
    toolNames.watchRun,
    toolNames.rerunRun,
    ...(toolNames.runWorkflow ? [toolNames.runWorkflow] : []),
  ]);
  config.workflows.forEach((workflow, index) => {
    if (seen.has(workflow.tool))
      throw new AdapterConfigError(`workflows[${index}].tool`, `the tool name ${workflow.tool} is already taken`);
    seen.add(workflow.tool);
  });

  const webhookSecret = config.webhookSecret ?? (environment.GITHUB_WEBHOOK_SECRET || undefined);
  if (webhookSecret !== undefined && webhookSecret.length < 16)
    throw new AdapterConfigError("webhookSecret", "at least 16 characters (from the option, or GITHUB_WEBHOOK_SECRET)");

  return { config, credentials, baseUrl, repositories: [...repositories], toolNames, webhookSecret };
}

function resolveCredentials(config: ResolvedGithubActionsConfig, environment: Environment): GithubCredentials {
  if (config.app) {
    const appId = config.app.appId ?? environment.GITHUB_APP_ID;
    const privateKey = config.app.privateKey ?? environment.GITHUB_APP_PRIVATE_KEY;
    const installationId = config.app.installationId ?? environment.GITHUB_APP_INSTALLATION_ID;
    if (!appId) throw new AdapterConfigError("app.appId", "required (the option, or GITHUB_APP_ID)");
    if (!privateKey) throw new AdapterConfigError("app.privateKey", "required (the option, or GITHUB_APP_PRIVATE_KEY)");
    if (!installationId)
      throw new AdapterConfigError("app.installationId", "required (the option, or GITHUB_APP_INSTALLATION_ID)");
    if (!privateKey.includes("PRIVATE KEY"))
      throw new AdapterConfigError("app.privateKey", "expected a PEM private key");
    return { kind: "app", appId, privateKey: privateKey.replace(/\\n/g, "\n"), installationId };
  }
  const token = config.token ?? environment.GITHUB_TOKEN;
  if (!token)
    throw new AdapterConfigError(
      "token",
      "required: set the token option or the GITHUB_TOKEN environment variable (or configure app)",
    );
  return { kind: "token", token };
}
