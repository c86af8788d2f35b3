import type { AdapterDefinition } from "@jobtasks/core";
import { githubActions } from "./github-actions-adapter.js";
import { githubActionsOptionsSchema, type ResolvedGithubActionsConfig } from "./github-actions-options.js";

/** How the `jobtasks` command builds this adapter from a config file (kind "github-actions"). */
export const adapterDefinition: AdapterDefinition<ResolvedGithubActionsConfig> = {
  kind: "github-actions",
  optionsSchema: githubActionsOptionsSchema,
  create: (options, environment) => githubActions(options, environment ?? process.env),
};
