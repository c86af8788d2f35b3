import { z } from "@jobtasks/core";
import { headerNameSchema, requestOptionsSchema } from "./request-options-schema.js";

/** A field of the small typed input form: `"string"`, `"integer?"` (optional), or a spelled-out spec. */
export const typedFieldSchema = z.union([
  z.string().regex(/^(string|number|integer|boolean|string\[\]|number\[\]|integer\[\])\??$/, {
    message:
      'expected "string", "number", "integer", "boolean" or an array form like "string[]", optionally ending in "?"',
  }),
  z.object({
    type: z.enum(["string", "number", "integer", "boolean", "array"]),
    description: z.string().optional(),
    /** Default: true, unless a default value is given. */
    required: z.boolean().optional(),
    default: z.json().optional(),
    enum: z
      .array(z.union([z.string(), z.number()]))
      .min(1)
      .optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    minLength: z.number().int().min(0).optional(),
    maxLength: z.number().int().min(0).optional(),
    pattern: z.string().optional(),
    /** Element type, for `type: array`. */
    items: z.enum(["string", "number", "integer", "boolean"]).optional(),
  }),
]);
export type TypedField = z.infer<typeof typedFieldSchema>;

/** A JSON Schema for tool input: an object schema, converted to zod with z.fromJSONSchema. */
const jsonObjectSchemaSchema = z
  .record(z.string(), z.json())
  .refine((schema) => schema["type"] === "object", { message: 'expected a JSON Schema with type: "object"' });

/** Letters, digits, `_`, `-`, `.`: also what a job reference's `tool` may hold. */
export const toolNamePattern = /^[A-Za-z0-9_.-]{1,64}$/;

export const toolOptionsSchema = z
  .object({
    /** Tool name as agents see it (after `toolNamePrefix`). Letters, digits, `_`, `-`, `.`. */
    name: z.string().regex(toolNamePattern, "expected 1-64 letters, digits, '_', '-' or '.'"),
    title: z.string().optional(),
    description: z.string().min(1),
    /** The tool's input as a JSON Schema (type: object). Exclusive with `input`. */
    inputSchema: jsonObjectSchemaSchema.optional(),
    /** The tool's input as a small typed form: field name → type. Exclusive with `inputSchema`. */
    input: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected a field name"), typedFieldSchema).optional(),
    /** JSON Schema of the completed result's structuredContent, when you know it. */
    outputSchema: jsonObjectSchemaSchema.optional(),
    /** Let clients without the tasks extension call the tool; the server waits this long. Default: unset. */
    synchronousWaitMs: z.number().int().positive().optional(),
    /** The request that starts a job. Default method POST, accepted statuses 200, 201, 202. */
    submit: requestOptionsSchema.extend({
      /**
       * Header carrying a fresh UUID per tool call that the upstream uses to recognise a repeated request
       * (Idempotency-Key, Repeatability-Request-ID). Only with it may `retries` be set.
       */
      idempotencyHeader: headerNameSchema.optional(),
      /**
       * Header carrying a fresh UUID per tool call for tracing only (x-ms-client-request-id,
       * X-Correlation-Id). It never makes a retry safe, so it never turns retries on.
       */
      correlationHeader: headerNameSchema.optional(),
      /**
       * Retries of a submit that failed with a network error or a retryable status, under the same
       * idempotency key. Opt-in, and only with `idempotencyHeader`: without an upstream that de-duplicates,
       * a lost answer retried could start the job twice. Default: 0.
       */
      retries: z.number().int().min(0).max(5).default(0),
      /**
       * Map the submit response body as a first status observation (when it is the job record or the
       * operation itself). Default: false.
       */
      firstSnapshot: z.boolean().default(false),
    }),
  })
  .refine((tool) => !(tool.inputSchema && tool.input), {
    message: "give either inputSchema (JSON Schema) or input (typed form), not both",
    path: ["input"],
  })
  .refine((tool) => tool.submit.retries === 0 || tool.submit.idempotencyHeader !== undefined, {
    message: "retries need submit.idempotencyHeader: without one, a retried submit could start the job twice",
    path: ["submit", "retries"],
  });
export type ToolOptions = z.infer<typeof toolOptionsSchema>;
