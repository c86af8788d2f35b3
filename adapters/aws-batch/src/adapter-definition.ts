import type { AdapterDefinition } from "@jobtasks/core";
import { awsBatch } from "./aws-batch-adapter.js";
import { awsBatchOptionsSchema, type ResolvedAwsBatchOptions } from "./aws-batch-options.js";

/** How the `jobtasks` command builds an `aws-batch` adapter instance from a config file. */
export const adapterDefinition: AdapterDefinition<ResolvedAwsBatchOptions> = {
  kind: "aws-batch",
  optionsSchema: awsBatchOptionsSchema,
  create: (options, environment) => awsBatch(options, environment ?? process.env),
};
