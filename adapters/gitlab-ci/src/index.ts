export { gitlabCi, type GitlabCiOptions } from "./gitlab-ci-adapter.js";
export { adapterDefinition } from "./adapter-definition.js";
export { gitlabCiOptionsSchema, type GitlabCiConfig, type ResolvedGitlabCiConfig } from "./gitlab-ci-options.js";
export { mapGitlabCiStatus, type PipelinePhase } from "./map-gitlab-ci-status.js";
export { pipelineResultSchema, type PipelineResult } from "./pipeline-result-schema.js";
export type { PipelineRef } from "./pipeline-ref.js";
