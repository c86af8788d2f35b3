import { z } from "zod";
import { defaultPollIntervalMs, isOrigin, originExpectation, readerDefaults } from "@jobtasks/server";

const adapterInstanceName = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, "use 1-64 letters, digits, '_' or '-'");

/** One adapter instance: a built-in `kind`, or your own package or file exporting `adapterDefinition`. */
export const adapterEntrySchema = z
  .strictObject({
    name: adapterInstanceName.describe("Instance name; sealed into task ids, so keep it stable"),
    kind: z.string().min(1).optional().describe("Built-in adapter: demo, github-actions, aws-batch, rest or gitlab-ci"),
    module: z
      .string()
      .min(1)
      .optional()
      .describe("Your own adapter: a package name or a path (relative to this file) exporting adapterDefinition"),
    options: z.record(z.string(), z.unknown()).default({}),
  })
  .refine((entry) => (entry.kind === undefined) !== (entry.module === undefined), {
    message: "give exactly one of kind or module",
  });

export const serverSettingsSchema = z.strictObject({
  name: z.string().min(1).default("jobtasks"),
  instructions: z.string().optional(),
  /** Polling interval suggested to clients when an adapter has none. */
  pollIntervalMs: z.number().int().min(100).default(defaultPollIntervalMs),
  /** How long one upstream status read may answer other polls of the same job. */
  snapshotCacheMs: z.number().int().min(0).default(readerDefaults.snapshotCacheMs),
  /** How long an upstream may stay unreachable before its tasks end failed. */
  upstreamRetryBudgetMs: z.number().int().min(0).default(readerDefaults.upstreamRetryBudgetMs),
  /**
   * Tools that clients without the tasks extension may call: the server waits up to this many
   * milliseconds for the job and answers with the plain result. A job that needs input, outlives the bound
   * or whose client stops waiting is cancelled and reported as a tool error.
   */
  synchronousWaitMs: z.record(z.string(), z.number().int().min(1).max(600_000)).default({}),
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /**
   * Origins whose browser pages may call the HTTP endpoint (requests carrying another Origin get 403; a
   * loopback server also accepts loopback origins).
   */
  allowedOrigins: z.array(z.string().refine(isOrigin, originExpectation)).default([]),
});

export const configFileSchema = z.strictObject({
  server: serverSettingsSchema.default(serverSettingsSchema.parse({})),
  adapters: z.array(adapterEntrySchema).min(1, "list at least one adapter"),
});

export type ConfigFile = z.infer<typeof configFileSchema>;
export type ServerSettings = z.infer<typeof serverSettingsSchema>;
export type AdapterEntry = z.infer<typeof adapterEntrySchema>;
