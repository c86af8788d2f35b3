import type { AdapterDefinition } from "@jobtasks/core";
import { demoAdapter } from "./demo-adapter.js";
import { demoAdapterOptionsSchema, type ResolvedDemoAdapterConfig } from "./demo-options.js";

/** How the `jobtasks` command builds a demo adapter from its config file (kind "demo"). */
export const adapterDefinition: AdapterDefinition<ResolvedDemoAdapterConfig> = {
  kind: "demo",
  optionsSchema: demoAdapterOptionsSchema,
  create: (options) => demoAdapter(options),
};
