import type { AdapterDefinition } from "@jobtasks/core";
import { memoryJobs } from "./memory-jobs-adapter.js";
import { memoryJobsOptionsSchema, type MemoryJobsConfig } from "./memory-jobs-options.js";

/** How `jobtasks` builds this adapter from a config file (`module: ./dist/index.js`). */
export const adapterDefinition: AdapterDefinition<MemoryJobsConfig> = {
  kind: "memory-jobs",
  optionsSchema: memoryJobsOptionsSchema,
  create: (options) => memoryJobs(options),
};
