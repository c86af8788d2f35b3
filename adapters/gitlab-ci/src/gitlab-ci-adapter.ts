import {
  AdapterConfigError,
  UpstreamError,
  configErrorFromIssues,
  type JobAdapterV1,
  type JobTool,
} from "@jobtasks/core";
import type { Dispatcher } from "undici";
import { createCreatePipelineTool } from "./create-pipeline-tool.js";
import { createGitlabCiApi } from "./gitlab-ci-api.js";
import { gitlabCiOptionsSchema, type GitlabCiConfig } from "./gitlab-ci-options.js";
import { gitlabHookEvents } from "./gitlab-hook-events.js";
import { GitlabHttpClient } from "./gitlab-http-client.js";
import { pipelineRefSchema, type PipelineRef } from "./pipeline-ref.js";
import { readPipelineSnapshot } from "./read-pipeline-snapshot.js";
import { respondToPipeline } from "./respond-to-pipeline.js";
import { createRetryPipelineTool } from "./retry-pipeline-tool.js";
import { createWatchPipelineTool } from "./watch-pipeline-tool.js";

/**
 * Options of `gitlabCi(options)`: the config-file options (gitlab-ci-options.ts documents each one and its
 * default) plus programmatic extras that a config file cannot carry.
 */
export type GitlabCiOptions = GitlabCiConfig & {
  /** The undici dispatcher (default: undici's global one). Tests inject a MockAgent, proxies a ProxyAgent. */
  dispatcher?: Dispatcher;
  /** The clock (default Date.now), for rate-limit windows. */
  now?: () => number;
};

export type Environment = Readonly<Record<string, string | undefined>>;

/** Build a GitLab CI adapter. Throws AdapterConfigError naming the option at fault. */
export function gitlabCi(options: GitlabCiOptions, environment: Environment = process.env): JobAdapterV1<PipelineRef> {
  const { dispatcher, now, ...configOptions } = options;
  const parsed = gitlabCiOptionsSchema.safeParse(configOptions, { jitless: true });
  if (!parsed.success) throw configErrorFromIssues(parsed.error);
  const config = parsed.data;
  const token = config.token ?? nonEmpty(environment["GITLAB_TOKEN"]);
  if (!token)
    throw new AdapterConfigError(
      "token",
      "no GitLab token: set options.token or the GITLAB_TOKEN environment variable",
    );
  const webhookSecret = config.webhookSecret ?? nonEmpty(environment["GITLAB_WEBHOOK_SECRET"]);
  if (webhookSecret !== undefined && webhookSecret.length < 16)
    throw new AdapterConfigError("webhookSecret", "at least 16 characters (from the option, or GITLAB_WEBHOOK_SECRET)");
  const http = new GitlabHttpClient({
    baseUrl: config.baseUrl,
    token,
    timeoutMs: config.requestTimeoutMs,
    pollIntervalMs: config.pollIntervalMs,
    now: now ?? Date.now,
    ...(dispatcher ? { dispatcher } : {}),
  });
  const api = createGitlabCiApi(http);
  const dependencies = { api, config };
  const prefix = config.toolPrefix;
  const tools: JobTool<PipelineRef>[] = [
    createCreatePipelineTool(dependencies, `${prefix}create_pipeline`),
    createWatchPipelineTool(dependencies, `${prefix}watch_pipeline`),
    createRetryPipelineTool(dependencies, `${prefix}retry_pipeline`),
  ].map((tool) =>
    config.synchronousWaitMs === undefined ? tool : { ...tool, synchronousWaitMs: config.synchronousWaitMs },
  );
  const snapshotDependencies = { api, settings: { logs: config.logs, pollIntervalMs: config.pollIntervalMs } };

  return {
    specificationVersion: "v1",
    kind: "gitlab-ci",
    tools,
    pollIntervalMs: config.pollIntervalMs,
    retentionMs: config.retentionDays === null ? null : config.retentionDays * 24 * 60 * 60 * 1000,
    // The core redacts these from everything this adapter hands back (withSecretRedaction).
    secrets: webhookSecret === undefined ? [token] : [token, webhookSecret],
    // The server checks every ref against it before the methods below see one.
    refSchema: pipelineRefSchema,
    ...(webhookSecret !== undefined ? { events: gitlabHookEvents(webhookSecret, config.projects) } : {}),

    doGetStatus(ref, context) {
      return readPipelineSnapshot(snapshotDependencies, ref, context);
    },

    doRespond(ref, responses, context) {
      return respondToPipeline(api, ref, responses, context);
    },

    async doCancel(ref, context) {
      // GitLab answers with the pipeline, often "canceling": the task stays working until it reads "canceled".
      const pipeline = await api.cancelPipeline(ref.project, ref.pipelineId, { signal: context.signal });
      // GitLab cancels running and pending jobs only: a pipeline waiting at a manual job answers unchanged.
      if (pipeline.status === "manual") {
        throw new UpstreamError(
          `GitLab ignored the cancel: pipeline ${ref.pipelineId} waits at a manual job, which GitLab does not cancel. ` +
            "Nothing runs until someone plays it; leave it unplayed, or decline its question, to keep it stopped",
          { isRetryable: false },
        );
      }
    },
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
