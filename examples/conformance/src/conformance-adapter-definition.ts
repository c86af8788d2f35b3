import { z } from "@jobtasks/core";
import type { AdapterDefinition } from "@jobtasks/core";
import { conformanceAdapter } from "./conformance-adapter.js";

/** The `options` block of the conformance adapter in the jobtasks config file. */
export const conformanceAdapterOptionsSchema = z.strictObject({
  pollIntervalMs: z.number().int().positive().optional().describe("Suggested client polling interval. Default 250."),
  maxJobs: z.number().int().positive().max(1_000_000).optional().describe("Jobs kept in memory. Default 10000."),
});

export type ConformanceAdapterConfig = z.output<typeof conformanceAdapterOptionsSchema>;

/** How the `jobtasks` command builds the adapter (`module: ./dist/index.js` in the config). */
export const adapterDefinition: AdapterDefinition<ConformanceAdapterConfig> = {
  kind: "conformance",
  optionsSchema: conformanceAdapterOptionsSchema,
  create(options) {
    return conformanceAdapter({
      ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
      ...(options.maxJobs !== undefined ? { maxJobs: options.maxJobs } : {}),
    });
  },
};
