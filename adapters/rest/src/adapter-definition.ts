import type { AdapterDefinition } from "@jobtasks/core";
import { restAdapter } from "./rest-adapter.js";
import { restOptionsEditorSchema, restOptionsSchema, type ResolvedRestOptions } from "./rest-options.js";

/** How the `jobtasks` command builds a `kind: rest` adapter instance from its config file. */
export const adapterDefinition: AdapterDefinition<ResolvedRestOptions> = {
  kind: "rest",
  optionsSchema: restOptionsSchema,
  // restOptionsSchema merges a preset before it looks at the fields, so its input side shows none of them.
  optionsEditorSchema: restOptionsEditorSchema,
  create: (options, environment) => restAdapter(options, environment ? { environment } : {}),
};
