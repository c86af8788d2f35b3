import { z } from "@jobtasks/core";
import { isPlainObject } from "@jobtasks/core/adapter-utils";
import { checkConfigPaths } from "./check-config-paths.js";
import { checkConsistency } from "./check-consistency.js";
import { eventsOptionsSchema } from "./events-options-schema.js";
import {
  cancelOptionsSchema,
  inputRequiredOptionsSchema,
  progressOptionsSchema,
  referenceOptionsSchema,
  resultOptionsSchema,
  statusOptionsSchema,
} from "./job-options-schema.js";
import { presets } from "./presets.js";
import { headerNameSchema } from "./request-options-schema.js";
import { toolOptionsSchema } from "./tool-options-schema.js";

/**
 * The options of a REST adapter: one schema, `restOptionsSchema`, and its input type `RestOptions`. A
 * declarative config describes a whole job API, so the parts that are each one idea keep their own
 * files and are composed here: `tool-options-schema.ts` (a tool and its submit request),
 * `job-options-schema.ts` (following a job: reference, status, progress, result, input, cancel) and
 * `request-options-schema.ts` (one templated HTTP request, shared by both) and `events-options-schema.ts`
 * (the job API's callbacks). The rules that span fields
 * are in `check-consistency.ts` and `check-config-paths.ts`; presets in `presets.ts`.
 */

/**
 * Secrets are given by environment-variable name (`tokenEnv`) or inline (`token`, typically written as
 * `${VAR}` in the jobtasks config file); either way they are never echoed in errors or results.
 */
const secretReference = {
  /** The secret itself (write `${VAR}` in the config file so it stays in the environment). */
  inline: z.string().min(1).optional(),
  /** Name of the environment variable holding the secret. */
  env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected an environment variable name")
    .optional(),
};

export const authOptionsSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("none") }),
  z.object({ type: z.literal("bearer"), token: secretReference.inline, tokenEnv: secretReference.env }),
  z.object({
    type: z.literal("basic"),
    username: z.string().optional(),
    usernameEnv: secretReference.env,
    password: secretReference.inline,
    passwordEnv: secretReference.env,
  }),
  z.object({
    type: z.literal("header"),
    name: headerNameSchema,
    value: secretReference.inline,
    valueEnv: secretReference.env,
  }),
]);
export type AuthOptions = z.infer<typeof authOptionsSchema>;

const originSchema = z.url({ protocol: /^https?$/ }).transform((url) => new URL(url).origin);

/** The complete declarative config of one REST adapter instance, after any preset was merged in. */
export const resolvedRestOptionsSchema = z.object({
  /** The preset this config started from, if any (kept for logs). */
  preset: z.enum(["azure-lro", "google-operation", "demo-api"]).optional(),
  /** Base URL of the job API; URL templates are appended to it. Required. */
  baseUrl: z.url({
    protocol: /^https?$/,
    error: (issue) =>
      issue.input === undefined ? "required: the job API's base URL (http or https)" : "expected an http(s) URL",
  }),
  /**
   * Other origins a status URL (from a header or a body) may point to; credentials are sent there, and
   * redirects may lead there. Default: none.
   */
  allowedOrigins: z.array(originSchema).default([]),
  /**
   * Origins a redirect may lead to without credentials (presigned download URLs of a result). A redirect
   * to an origin that is neither baseUrl's nor listed here or in allowedOrigins is refused. Default: none.
   */
  allowedRedirectOrigins: z.array(originSchema).default([]),
  /** Prefix for every tool name, to keep names unique across adapter instances. Default: "". */
  toolNamePrefix: z
    .string()
    .regex(/^[A-Za-z0-9_.-]*$/)
    .default(""),
  /** Credentials, sent only to baseUrl's origin and allowedOrigins, never across a redirect to another origin. */
  auth: authOptionsSchema.default({ type: "none" }),
  /** Fixed headers on every request (not for secrets: use auth). Default: none. */
  headers: z.record(headerNameSchema, z.string()).default({}),
  /** Per-request timeout in milliseconds. Default: 30000. */
  timeoutMs: z.number().int().positive().default(30_000),
  /** Largest response body accepted, in bytes; a larger one is an upstream error. Default: 1 MiB. */
  maxResponseBytes: z.number().int().positive().default(1_048_576),
  /** Redirects followed on GET requests. Default: 5. */
  maxRedirects: z.number().int().min(0).max(20).default(5),
  /** How long the upstream keeps a job (ms), the task's ttlMs; null: unknown/forever. Default: null. */
  retentionMs: z.number().int().positive().nullable().default(null),
  /** Client polling policy: Retry-After of the last status response wins, else initial × multiplier^n, capped. */
  polling: z
    .object({
      initialIntervalMs: z.number().int().positive().default(2_000),
      multiplier: z.number().min(1).max(10).default(1.5),
      maxIntervalMs: z.number().int().positive().default(30_000),
    })
    .default({ initialIntervalMs: 2_000, multiplier: 1.5, maxIntervalMs: 30_000 }),
  /** The tools this instance offers; each starts one job through its submit request. */
  tools: z.array(toolOptionsSchema).min(1),
  reference: referenceOptionsSchema,
  status: statusOptionsSchema,
  progress: progressOptionsSchema.default({}),
  result: resultOptionsSchema.default({ path: "$", logTailLines: 20 }),
  /** Unset: the adapter never asks for input. */
  inputRequired: inputRequiredOptionsSchema.optional(),
  /** Unset: tasks of this instance cannot be cancelled upstream. */
  cancel: cancelOptionsSchema.optional(),
  /** Unset: the instance takes no callbacks at `/hooks/<instance name>` and follows its jobs by polling alone. */
  events: eventsOptionsSchema.optional(),
});

/** The config after presets and defaults: what the adapter runs on. */
export type ResolvedRestOptions = z.output<typeof resolvedRestOptionsSchema>;

/** Objects merge key by key; lists and scalars from the user replace the preset's. */
function mergeOverPreset(preset: unknown, user: unknown): unknown {
  if (!isPlainObject(preset) || !isPlainObject(user)) return user === undefined ? preset : user;
  const merged: Record<string, unknown> = { ...preset };
  for (const [key, value] of Object.entries(user)) merged[key] = mergeOverPreset(preset[key], value);
  return merged;
}

/**
 * The `options` block of a `kind: rest` adapter instance, as the user writes it: any field of
 * resolvedRestOptionsSchema, each optional when a preset supplies it. Parsing merges the preset, applies
 * defaults, checks the rules that span fields and reports every problem with the path of the field at fault.
 */
export const restOptionsSchema: z.ZodType<ResolvedRestOptions, Partial<z.input<typeof resolvedRestOptionsSchema>>> = z
  .looseObject({ preset: z.enum(["azure-lro", "google-operation", "demo-api"]).optional() })
  .transform((raw, context) => {
    const merged = raw.preset ? mergeOverPreset(presets[raw.preset], raw) : raw;
    const parsed = resolvedRestOptionsSchema.safeParse(merged, { jitless: true });
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        context.addIssue({ code: "custom", path: issue.path, message: issue.message });
      return z.NEVER;
    }
    checkConsistency(parsed.data, context);
    checkConfigPaths(parsed.data, context);
    return parsed.data;
  }) as unknown as z.ZodType<ResolvedRestOptions, Partial<z.input<typeof resolvedRestOptionsSchema>>>;

/**
 * The same fields for editors (the config file's JSON Schema): every field of an object optional, all the
 * way down, since a preset may supply it and objects merge key by key; a list replaces the preset's, so its
 * items stay whole. Never used to validate: restOptionsSchema does.
 */
export const restOptionsEditorSchema: z.ZodType = optionalAlongObjects(resolvedRestOptionsSchema);

function optionalAlongObjects(schema: z.ZodType): z.ZodType {
  let inner = schema;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodDefault) inner = inner.unwrap() as z.ZodType;
  if (!(inner instanceof z.ZodObject)) return inner;
  const fields = Object.entries(inner.shape as Record<string, z.ZodType>).map(
    ([key, field]) => [key, optionalAlongObjects(field).optional()] as const,
  );
  // A new object, not extend(): refinements (checked by restOptionsSchema anyway) cannot travel with it.
  const rebuilt = z.object(Object.fromEntries(fields));
  const catchall = inner._zod.def.catchall;
  return catchall ? rebuilt.catchall(catchall) : rebuilt;
}

/** What people write (a preset plus what it cannot know, or a full config), defaults optional. */
export type RestOptions = z.input<typeof restOptionsSchema>;
