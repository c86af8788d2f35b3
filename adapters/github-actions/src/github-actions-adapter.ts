import { UpstreamError, type JobAdapterV1, type JobTool } from "@jobtasks/core";
import { createGithubApi } from "./github-actions-api.js";
import type { GithubActionsConfig } from "./github-actions-options.js";
import { createGithubClient, type UpstreamRequestEvent } from "./create-github-client.js";
import { RateBudget } from "./rate-budget.js";
import { readRunSnapshot } from "./read-run-snapshot.js";
import { createRerunRunTool } from "./rerun-run-tool.js";
import { respondToDeployments } from "./respond-to-deployments.js";
import { resolveGithubActionsOptions, type Environment } from "./resolve-github-actions-options.js";
import { checkRunRef, type RunRef } from "./run-ref.js";
import { createRunWorkflowTool } from "./run-workflow-tool.js";
import type { ToolDependencies } from "./tool-dependencies.js";
import { createWatchRunTool } from "./watch-run-tool.js";
import { createWorkflowTool } from "./workflow-tool.js";

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

/** Build a GitHub Actions adapter. Throws AdapterConfigError naming the option at fault. */
export function githubActions(options: GithubActionsOptions, environment: Environment = process.env): JobAdapterV1<RunRef> {
  const { fetch: injectedFetch, onUpstreamRequest, now: injectedNow, ...configOptions } = options;
  const resolved = resolveGithubActionsOptions(configOptions, environment);
  const { config, secrets } = resolved;
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
    ...(resolved.credentials.kind === "app" ? { onCredential: rememberForRedaction(secrets) } : {}),
  });
  const api = createGithubApi(octokit, secrets);
  const dependencies: ToolDependencies = { api, config, repositories: resolved.repositories, now };

  const tools: JobTool<RunRef>[] = [
    ...config.workflows.map((workflow) => createWorkflowTool(dependencies, workflow)),
    ...(resolved.toolNames.runWorkflow ? [createRunWorkflowTool(dependencies, resolved.toolNames.runWorkflow)] : []),
    createWatchRunTool(dependencies, resolved.toolNames.watchRun),
    createRerunRunTool(dependencies, resolved.toolNames.rerunRun),
  ].map((tool) => (config.synchronousWaitMs === undefined ? tool : { ...tool, synchronousWaitMs: config.synchronousWaitMs }));
  // Status reads go out once each: the server's reader is their only retry loop.
  const statusApi = createGithubApi(octokit, secrets, { statusReads: true });
  const snapshotDependencies = { api: statusApi, budget, secrets, now, settings: { logs: config.logs, pollIntervalMs: config.pollIntervalMs, forceCancelAfterMs: config.forceCancelAfterMs } };

  return {
    specificationVersion: "v1",
    kind: "github-actions",
    tools,
    pollIntervalMs: config.pollIntervalMs,
    retentionMs: config.retentionDays * 24 * 60 * 60 * 1000,

    doGetStatus(ref, context) {
      return readRunSnapshot(snapshotDependencies, checkRunRef(ref), context);
    },

    async doRespond(ref, responses, context) {
      await respondToDeployments(api, checkRunRef(ref), responses, context);
    },

    async doCancel(ref, context) {
      const checked = checkRunRef(ref);
      // Cancel acts on the run's current attempt; a finished pinned attempt means a later re-run owns the run now.
      const attempt = await api.getRunAttempt(checked, { signal: context.signal, notFoundMeansGone: true });
      if (attempt.status === "completed") return;
      try {
        await api.cancelRun(checked, false, { signal: context.signal });
      } catch (error) {
        // 409: the run can no longer be cancelled (it is finishing); the answer is an acknowledgement anyway.
        if (error instanceof UpstreamError && error.httpStatus === 409) {
          context.logger.debug({ runId: checked.runId }, "cancel came too late (409)");
          return;
        }
        throw error;
      }
    },
  };
}

/**
 * Add the App's short-lived credentials to the redaction list (which everything reads by reference) as
 * they are sent. Only the newest few are kept: a renewed installation token replaces an expired one.
 */
function rememberForRedaction(secrets: string[]): (credential: string) => void {
  const configured = secrets.length;
  const keptCredentials = 8;
  return (credential) => {
    if (secrets.includes(credential)) return;
    secrets.push(credential);
    if (secrets.length > configured + keptCredentials) secrets.splice(configured, 1);
  };
}
