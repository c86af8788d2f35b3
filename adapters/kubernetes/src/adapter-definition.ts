import type { AdapterDefinition } from "@jobtasks/core";
import { kubernetes } from "./kubernetes-adapter.js";
import { kubernetesOptionsSchema, type ResolvedKubernetesConfig } from "./kubernetes-options.js";

/** How the `jobtasks` command builds this adapter from a config file (kind "kubernetes"). */
export const adapterDefinition: AdapterDefinition<ResolvedKubernetesConfig> = {
  kind: "kubernetes",
  optionsSchema: kubernetesOptionsSchema,
  create: (options, environment) => kubernetes(options, environment ?? process.env),
};
