import { InvalidToolInputError, UpstreamError, z } from "@jobtasks/core";
import type { GitlabCiApi } from "./gitlab-ci-api.js";
import type { ResolvedGitlabCiConfig } from "./gitlab-ci-options.js";

/** What every tool needs: the API, the options, and the input field naming an allow-listed project. */
export interface ToolDependencies {
  api: GitlabCiApi;
  config: ResolvedGitlabCiConfig;
}

/** The `project` argument: one of the configured projects, listed in the tool's schema. */
export function projectInputSchema(config: ResolvedGitlabCiConfig) {
  const [first, ...rest] = config.projects;
  return z.enum([first!, ...rest]).describe("The GitLab project: one of the projects this server allows");
}

/** A 404 on a pipeline the agent named: its argument is wrong (or invisible to the token), not an outage. */
export function pipelineNotFoundAsInvalidInput(error: unknown): never {
  if (error instanceof UpstreamError && error.httpStatus === 404) {
    throw new InvalidToolInputError(
      "pipelineId",
      "GitLab has no such pipeline in this project (or the token cannot see it)",
      { cause: error },
    );
  }
  throw error;
}

/**
 * The signal a creating POST is sent with in place of the client's: once sent, a pipeline may exist, so the
 * client leaving must not cut the call short (its request deadline, requestTimeoutMs, still bounds it). The
 * tool returns the pipeline, and the server cancels a job whose start returned after its client left.
 */
export const notCutShortByClient: AbortSignal = new AbortController().signal;
