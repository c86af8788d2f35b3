import type { AdapterDefinition } from "@jobtasks/core";
import { gitlabCi } from "./gitlab-ci-adapter.js";
import { gitlabCiOptionsSchema, type ResolvedGitlabCiConfig } from "./gitlab-ci-options.js";

/** How the `jobtasks` command builds this adapter from a config file (kind "gitlab-ci"). */
export const adapterDefinition: AdapterDefinition<ResolvedGitlabCiConfig> = {
  kind: "gitlab-ci",
  optionsSchema: gitlabCiOptionsSchema,
  create: (options, environment) => gitlabCi(options, environment ?? process.env),
};
