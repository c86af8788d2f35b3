export { githubActions, type GithubActionsOptions } from "./github-actions-adapter.js";
export { adapterDefinition } from "./adapter-definition.js";
export {
  githubActionsOptionsSchema,
  type GithubActionsConfig,
  type ResolvedGithubActionsConfig,
  type WorkflowToolConfig,
} from "./github-actions-options.js";
export { mapGithubActionsStatus, rawRunStatus, type RunPhase } from "./map-github-actions-status.js";
export { runResultSchema, type RunResult } from "./run-result-schema.js";
export type { RunRef } from "./run-ref.js";
export type { UpstreamRequestEvent } from "./create-github-client.js";
