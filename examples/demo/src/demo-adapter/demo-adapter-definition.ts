import { z } from "zod";
import type { AdapterDefinition } from "@jobtasks/core";
import { demoAdapter } from "./demo-adapter.js";
import type { DemoAdapterOptions } from "./demo-adapter-options.js";

/** The `options` block of a `kind: demo` adapter in the jobtasks config file. */
export const demoAdapterOptionsSchema = z.strictObject({
  baseUrl: z.url({ protocol: /^https?$/ }).describe("The demo API's URL, e.g. http://127.0.0.1:4010."),
  pollIntervalMs: z.number().int().positive().optional().describe("Suggested client polling interval. Default 1000."),
  toolName: z.string().min(1).default("demo_pipeline").describe('Name of the MCP tool. Default "demo_pipeline".'),
});

export type DemoAdapterConfig = z.output<typeof demoAdapterOptionsSchema>;

/** How the `jobtasks` command builds a demo adapter from its config file. */
export const adapterDefinition: AdapterDefinition<DemoAdapterConfig> = {
  kind: "demo",
  optionsSchema: demoAdapterOptionsSchema,
  create(options) {
    const adapterOptions: DemoAdapterOptions = { baseUrl: options.baseUrl, toolName: options.toolName };
    if (options.pollIntervalMs !== undefined) adapterOptions.pollIntervalMs = options.pollIntervalMs;
    return demoAdapter(adapterOptions);
  },
};
