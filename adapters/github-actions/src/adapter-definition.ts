import type { AdapterDefinition } from "@jobtasks/core";
import { githubActions } from "./github-actions-adapter.js";
import { githubActionsOptionsSchema, type GithubActionsConfig } from "./github-actions-options.js";

/** How the `jobtasks` command builds this adapter from a config file (kind "github-actions"). */
export const adapterDefinition: AdapterDefinition<GithubActionsConfig> = {
  kind: "github-actions",
  optionsSchema: githubActionsOptionsSchema as unknown as AdapterDefinition<GithubActionsConfig>["optionsSchema"],
  create: (options, environment) => githubActions(options, environment ?? process.env),
};
