import { z } from "zod";
import {
  cancelOptionsSchema,
  inputRequiredOptionsSchema,
  progressOptionsSchema,
  referenceOptionsSchema,
  resultOptionsSchema,
  statusOptionsSchema,
} from "./job-options-schema.js";
import { headerNameSchema } from "./request-options-schema.js";
import { toolOptionsSchema } from "./tool-options-schema.js";

/**
 * Secrets are given by environment-variable name (`tokenEnv`) or inline (`token`, typically written as
 * `${VAR}` in the jobtasks config file); either way they are never echoed in errors or results.
 */
const secretReference = {
  /** The secret itself (write `${VAR}` in the config file so it stays in the environment). */
  inline: z.string().min(1).optional(),
  /** Name of the environment variable holding the secret. */
  env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected an environment variable name").optional(),
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
  z.object({ type: z.literal("header"), name: headerNameSchema, value: secretReference.inline, valueEnv: secretReference.env }),
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
    error: (issue) => (issue.input === undefined ? "required: the job API's base URL (http or https)" : "expected an http(s) URL"),
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
  toolNamePrefix: z.string().regex(/^[A-Za-z0-9_.-]*$/).default(""),
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
});

/** The config after presets and defaults: what the adapter runs on. */
export type ResolvedRestOptions = z.infer<typeof resolvedRestOptionsSchema>;
