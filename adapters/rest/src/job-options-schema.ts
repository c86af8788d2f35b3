import { z } from "@jobtasks/core";
import {
  headerNameSchema,
  httpStatusSchema,
  requestOptionsSchema,
  urlTemplateSchema,
} from "./request-options-schema.js";

const valueListSchema = z.array(z.string()).default([]);

/** Where the job reference comes from in the submit response. Give `header` or `path`. */
export const referenceOptionsSchema = z
  .object({
    /** Response headers to read, first present wins (e.g. Operation-Location, Azure-AsyncOperation, Location). */
    header: z.array(headerNameSchema).min(1).optional(),
    /** JSONPath into the submit response body (e.g. `$.id`, `$.name`). */
    path: z.string().min(1).optional(),
    /**
     * `id`: the value is a job id and `status.url` builds the status URL from `{{job.id}}`.
     * `url`: the value is the status URL itself. Default: `url` for a header, `id` for a body path.
     */
    kind: z.enum(["id", "url"]).optional(),
  })
  .refine((reference) => (reference.header === undefined) !== (reference.path === undefined), {
    message: "give exactly one of header or path",
  });

/** The HTTP rules every status read starts from: a running operation's 202, a vanished job's 404 and 410. */
const defaultHttpRules: Readonly<Record<string, "working" | "completed" | "gone">> = {
  "202": "working",
  "404": "gone",
  "410": "gone",
};

/** How a status response maps to a task status. Value lists are compared case-insensitively. */
export const statusOptionsSchema = z.object({
  /** Status URL template. Default: "{{job.id}}" (the reference is the URL). Required for `kind: id`. */
  url: urlTemplateSchema.optional(),
  /** JSONPath(s) of the status field; the first that yields a value gives the raw status. */
  field: z
    .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
    .transform((field) => (Array.isArray(field) ? field : [field])),
  working: valueListSchema,
  inputRequired: valueListSchema,
  /** Values after which the job ran to its end (success, or failure when also in errorValues). */
  completed: valueListSchema,
  /** Completed values that are tool-level errors (result.isError: true). They need not be listed in completed. */
  errorValues: valueListSchema,
  cancelled: valueListSchema,
  /** Values meaning the job can no longer be followed (protocol-level failure, e.g. "expired"). */
  failed: valueListSchema,
  /** Task status for a value in no list (or a missing field). Never terminal. Default: working. */
  unknown: z.enum(["working", "input_required"]).default("working"),
  /**
   * HTTP status rules, checked before the body: status code → working | completed | gone. `gone` ends the
   * task failed (job not found). The user's rules merge over the defaults {"202": "working", "404": "gone",
   * "410": "gone"}: a code named here replaces its default rule, the others stay.
   */
  http: z
    .record(z.string().regex(/^[1-5]\d\d$/, "expected an HTTP status code"), z.enum(["working", "completed", "gone"]))
    .default({})
    .transform((rules) => ({ ...defaultHttpRules, ...rules })),
  /**
   * How long after the submit a `gone` answer (404) is read as "not visible upstream yet" (working) rather
   * than as a vanished job: eventually consistent upstreams may not list a job they just accepted. Set 0
   * to end the task failed on the first 404. Default: 30000 (30 s).
   */
  goneGraceMs: z.number().int().min(0).max(600_000).default(30_000),
  /** JSONPath of the upstream's last-change time (ISO 8601), reported as lastUpdatedAt. */
  updatedAtPath: z.string().optional(),
});

/** A message template, or a list of them: the first that renders (every placeholder has a value) is used. */
const messageTemplatesSchema = z
  .union([z.string(), z.array(z.string()).min(1)])
  .transform((templates) => (Array.isArray(templates) ? templates : [templates]))
  .optional();

/** What the agent reads in statusMessage: while the job runs, and once it has ended. */
export const progressOptionsSchema = z.object({
  /** statusMessage template(s) over the status response (`{{body.step}}`); falls back to the raw status. */
  message: messageTemplatesSchema,
  /** JSONPath of a 0-100 percentage, appended to the raw status when no message template renders. */
  percentPath: z.string().optional(),
  /** statusMessage template(s) of a job that completed. Default: the raw status. */
  completedMessage: messageTemplatesSchema,
  /** statusMessage template(s) of a job that ended with an error value. Default: `failed: <raw status>` (just `failed` when that is the raw status). */
  errorMessage: messageTemplatesSchema,
  /** statusMessage template(s) of a cancelled job. Default: the raw status. */
  cancelledMessage: messageTemplatesSchema,
});

/** How a completed job's result is built. */
export const resultOptionsSchema = z.object({
  /** JSONPath of the result in the status (or follow-up) response; when it yields nothing, the whole body. */
  path: z.string().default("$"),
  /**
   * Text template for the first content block of a finished job (success or error), over the status
   * response (`{{body.name}} {{body.status}}`). Default: the result as JSON, or "The job ended with status …".
   */
  summary: z.string().optional(),
  /**
   * Build structuredContent from named paths instead of `path` (for success and error results alike):
   * name → JSONPath (first match), or {path, all: true} for the list of every match (`logs[-20:]`).
   * Names whose path yields nothing are left out.
   */
  fields: z
    .record(
      z.string().min(1),
      z.union([z.string().min(1), z.object({ path: z.string().min(1), all: z.boolean().default(false) })]),
    )
    .optional(),
  /** Follow-up GET for the result, when the status response does not carry it. */
  url: urlTemplateSchema.optional(),
  /** JSONPath of the error detail shown when the job ended with an error value. */
  errorPath: z.string().optional(),
  /** JSONPath of log lines (array of strings, or a string); their tail is shown for failed jobs. */
  logsPath: z.string().optional(),
  /** How many log lines to show. Default: 20. */
  logTailLines: z.number().int().min(1).max(500).default(20),
});

/** Input requests (elicitation forms) built from the status response while the job waits for input. */
export const inputRequiredOptionsSchema = z.object({
  /** JSONPath of a value unique for the life of the job (an approval id); it becomes the request key. */
  keyPath: z.string().min(1),
  /** Form message template. Default: "The job is waiting for input". */
  message: z.string().default("The job is waiting for input"),
  /** The form's JSON Schema (type: object, flat properties), fixed in config... */
  schema: z
    .object({
      type: z.literal("object"),
      properties: z.record(z.string(), z.record(z.string(), z.json())),
      required: z.array(z.string()).optional(),
    })
    .optional(),
  /** ...or read from the status response. */
  schemaPath: z.string().optional(),
  /**
   * Whether the question is an approval, a person's decision: the server then lets only a caller with the
   * approval scope answer it (`server.auth.approvalScope`). Default true, so that a deploy gate is guarded
   * unless the config says it is a plain form (asking for a value).
   */
  approval: z.boolean().default(true),
  /**
   * The request that delivers an accepted answer; `{{key}}` is the request key and `{{answer.<field>}}`
   * the form content. Default method POST, accepted statuses 200, 201, 202, 204.
   */
  respond: requestOptionsSchema.extend({
    /**
     * Body sent instead of `body` when the person declines or dismisses the form (action `decline` or `cancel`).
     * Required whenever `inputRequired` is set (checked with the whole options): every answer must resolve
     * its question upstream, since the tasks extension forbids presenting an answered key again.
     */
    declineBody: z.json().optional(),
    /** Statuses meaning the question was already answered or withdrawn; ignored. Default: [409]. */
    alreadyAnsweredStatus: z.array(httpStatusSchema).default([409]),
  }),
});

/** The cancel request and how cancellation is recognised. */
export const cancelOptionsSchema = requestOptionsSchema.extend({
  /** Statuses meaning the job had already finished; ignored (the task ends as the job did). Default: [409]. */
  alreadyFinishedStatus: z.array(httpStatusSchema).default([409]),
  /**
   * Recognise an effective cancel beyond `status.cancelled`: a terminal job whose `path` matches one of
   * `values` is reported cancelled (e.g. `isCancelled: true`).
   */
  recognizedBy: z.object({ path: z.string().min(1), values: z.array(z.string()).min(1) }).optional(),
});

export type ReferenceOptions = z.infer<typeof referenceOptionsSchema>;
export type StatusOptions = z.infer<typeof statusOptionsSchema>;
export type ProgressOptions = z.infer<typeof progressOptionsSchema>;
export type ResultOptions = z.infer<typeof resultOptionsSchema>;
export type InputRequiredOptions = z.infer<typeof inputRequiredOptionsSchema>;
export type CancelOptions = z.infer<typeof cancelOptionsSchema>;
