import type { AdapterDefinition } from "@jobtasks/core";
import { restAdapter } from "./rest-adapter.js";
import { restOptionsSchema, type ResolvedRestOptions } from "./rest-options.js";

/** How the `jobtasks` command builds a `kind: rest` adapter instance from its config file. */
export const adapterDefinition: AdapterDefinition<ResolvedRestOptions> = {
  kind: "rest",
  optionsSchema: restOptionsSchema,
  create: (options, environment) => restAdapter(options, environment ? { environment } : {}),
};
