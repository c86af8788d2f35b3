import { z } from "@jobtasks/core";
import { headerNameSchema } from "./request-options-schema.js";

/**
 * The `events` block: how a job API's callbacks (a webhook it POSTs when a job changes) reach the tasks of
 * its jobs through `POST /hooks/<instance>`. Where the job id is in the payload, optionally its status, and
 * how a delivery proves it came from the API. The rules that span these fields are checked in
 * check-consistency.ts; the secret is read from the environment when the adapter is built.
 */

/** Shorter secrets can be guessed; GitHub's webhook secret option asks the same. */
export const minimumEventSecretLength = 16;

const environmentVariableSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected an environment variable name")
  .optional();

/** Like auth's credentials: the secret inline (written `${VAR}` in the config file), or a variable's name. */
const secretFields = {
  /** The secret itself (write `${VAR}` in the config file so it stays in the environment). */
  secret: z.string().min(minimumEventSecretLength, `at least ${minimumEventSecretLength} characters`).optional(),
  /** Name of the environment variable holding the secret. */
  secretEnv: environmentVariableSchema,
};

const hmacVerificationSchema = z.object({
  /** An HMAC-SHA256 under the shared secret, of the raw body (or of `<timestamp>.<body>` with timestampHeader). */
  scheme: z.literal("hmac-sha256"),
  /** The header carrying the signature (e.g. X-Signature). */
  header: headerNameSchema,
  /** How the signature is written. Default: hex. */
  encoding: z.enum(["hex", "base64"]).default("hex"),
  /** Text before the signature in the header (e.g. `sha256=`), compared case-insensitively. Default: none. */
  prefix: z.string().min(1).optional(),
  /**
   * The header carrying the delivery's Unix time in seconds. When set, the signature covers
   * `<timestamp>.<body>` and a delivery more than toleranceSeconds from the server's clock is refused,
   * so a captured delivery cannot be replayed later.
   */
  timestampHeader: headerNameSchema.optional(),
  /** How far the timestamp may be from the time the delivery arrived, either way. Default: 300. Needs timestampHeader. */
  toleranceSeconds: z.number().int().min(1).max(86_400).optional(),
  ...secretFields,
});

const sharedSecretVerificationSchema = z.object({
  /** The secret itself, in a header (as an API's callback settings or an EventBridge connection send it). */
  scheme: z.literal("shared-secret"),
  /** The header carrying the secret (e.g. X-Callback-Token). */
  header: headerNameSchema,
  ...secretFields,
});

export const verificationOptionsSchema = z.discriminatedUnion(
  "scheme",
  [hmacVerificationSchema, sharedSecretVerificationSchema],
  {
    error: (issue) =>
      issue.input === undefined
        ? 'required: how a delivery proves it came from the job API (scheme "hmac-sha256" or "shared-secret")'
        : undefined,
  },
);

export const eventsOptionsSchema = z.object({
  /** JSONPath of the job id in the payload: the same value the submit answer gave as the reference. Required. */
  jobIdPath: z
    .string({
      error: (issue) =>
        issue.input === undefined ? "required: the JSONPath of the job id in the payload" : "expected a JSONPath",
    })
    .min(1),
  /**
   * JSONPath of the job's status in the payload, mapped with the `status` value lists. A running,
   * cancelled or failed job's task then needs no status read; without it (or for a job that completed or
   * waits for input, whose result or question comes from the status read) the job is read again.
   */
  statusPath: z.string().min(1).optional(),
  /** JSONPath of the time of the change (ISO 8601) in the payload: an older delivery never replaces a newer status. */
  updatedAtPath: z.string().min(1).optional(),
  /** The header carrying the delivery's id; a second delivery with an id seen before has no effect. */
  deliveryIdHeader: headerNameSchema.optional(),
  /** Or the JSONPath of the delivery's id in the payload. */
  deliveryIdPath: z.string().min(1).optional(),
  /** How a delivery proves it came from the job API. Required. */
  verification: verificationOptionsSchema,
});

export type EventsOptions = z.infer<typeof eventsOptionsSchema>;
export type VerificationOptions = z.infer<typeof verificationOptionsSchema>;
