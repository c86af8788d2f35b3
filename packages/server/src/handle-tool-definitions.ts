import { z } from "@jobtasks/core";
import { inputJsonSchema, type ToolDescriptor } from "./tool-registry.js";

/**
 * The three tools through which a client without the tasks extension follows a job: what they are
 * called, what they accept and what they answer. The names are part of the interface a model learns.
 */

export const handleToolNames = ["task_status", "task_answer", "task_cancel"] as const;
export type HandleToolName = (typeof handleToolNames)[number];

export function isHandleToolName(name: string): name is HandleToolName {
  return (handleToolNames as readonly string[]).includes(name);
}

/** task_status waits this long by default: a 10-minute job costs about 15 calls, and 40 s stays well under a 60 s client timeout. */
export const defaultStatusWaitSeconds = 40;
export const maxStatusWaitSeconds = 50;

const taskId = z.string().min(1).describe("The taskId the job tool answered with");

export const handleToolInputSchemas = {
  task_status: z.strictObject({
    taskId,
    waitSeconds: z
      .number()
      .min(0)
      .max(maxStatusWaitSeconds)
      .default(defaultStatusWaitSeconds)
      .describe("How long to wait for the job to finish or ask a question, in seconds"),
  }),
  task_answer: z.strictObject({
    taskId,
    key: z.string().min(1).describe("The question's key, as task_status listed it under inputRequests"),
    action: z
      .enum(["accept", "decline", "cancel"])
      .describe('"accept" with content answers the form; "decline" refuses; "cancel" dismisses it'),
    // What an elicitation form's field may hold: typed values give the schema keywords strict clients check.
    content: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]))
      .optional()
      .describe("The form's fields (its requestedSchema), for action accept"),
  }),
  task_cancel: z.strictObject({ taskId }),
} satisfies Record<HandleToolName, z.ZodType>;

const statuses = ["working", "input_required", "completed", "failed", "cancelled"];

/** A finished job's outcome, in task_status's answer and in task_cancel's for a job that had already ended. */
const outcomeProperties = {
  result: { type: "object", description: "The job's own structured result, when completed" },
  error: {
    type: "object",
    properties: { code: { type: "integer" }, message: { type: "string" } },
    required: ["code", "message"],
  },
};

/** The call to make next (see NextCall in handle-results.ts): in every answer that has one. */
const nextCallSchema = {
  type: "object",
  description: "The call to make next: the tool, the arguments that are fixed, and what is left to decide",
  properties: {
    tool: { type: "string", enum: ["task_status", "task_answer"] },
    arguments: { type: "object", additionalProperties: true },
    description: { type: "string" },
  },
  required: ["tool", "arguments", "description"],
};

/** What task_status answers (and a job tool's handle, which is the same shape without inputRequests or result). */
const taskStatusOutputSchema = {
  type: "object",
  properties: {
    taskId: { type: "string" },
    status: { type: "string", enum: statuses },
    statusMessage: { type: "string" },
    inputRequests: {
      type: "object",
      description:
        'Questions to answer with task_answer, by key: { method: "elicitation/create", params: { message, requestedSchema } }',
      additionalProperties: { type: "object" },
    },
    pollIntervalMs: { type: "integer", minimum: 0 },
    next: nextCallSchema,
    ...outcomeProperties,
  },
  required: ["taskId", "status", "pollIntervalMs"],
};

const descriptors: Record<HandleToolName, Omit<ToolDescriptor, "inputSchema">> = {
  task_status: {
    name: "task_status",
    title: "Follow a started job",
    description:
      "Wait for a job started by another tool of this server, by its taskId: answers when the job finishes, when it " +
      "asks a question (answer it with task_answer), or after waitSeconds (default 40) with its progress; while it is " +
      '"working", call task_status again. When it is completed, the answer is the job\'s own result.',
    outputSchema: taskStatusOutputSchema,
  },
  task_answer: {
    name: "task_answer",
    title: "Answer a job's question",
    description:
      "Answer a question a job asked (status input_required), such as an approval: give the taskId, the question's key " +
      "from task_status, an action, and for accept the form's fields as content. Each question takes one answer.",
    outputSchema: {
      type: "object",
      properties: {
        taskId: { type: "string" },
        key: { type: "string" },
        action: { type: "string", enum: ["accept", "decline", "cancel"] },
        sent: {
          type: "boolean",
          description:
            "true when the answer reached the upstream; false when the question was not outstanding (already answered): nothing was sent, or with delivering: not yet",
        },
        questionOpen: {
          type: "boolean",
          description:
            "true when the answer sent left the question open (a dismissed form): answer it again with task_answer once decided",
        },
        delivering: {
          type: "boolean",
          description:
            "true when the upstream was too slow to answer in time: the answer is still being delivered, at most once, and only if the question is still open then",
        },
        upstreamSlow: { type: "boolean", description: "true when the upstream did not answer within the call's bound" },
        status: {
          type: "string",
          enum: statuses,
          description:
            "The job's status as this process knows it: after a sent answer, without the question just answered (working when it asked nothing else); else as last seen",
        },
        next: nextCallSchema,
      },
      required: ["taskId", "key", "action", "sent"],
    },
  },
  task_cancel: {
    name: "task_cancel",
    title: "Cancel a job",
    description:
      "Ask the system running a job to cancel it, by its taskId. The cancel is requested, not immediate: the job may " +
      "still finish first; task_status tells how it ended. A job that had already ended is answered with how it ended.",
    outputSchema: {
      type: "object",
      properties: {
        taskId: { type: "string" },
        status: {
          type: "string",
          enum: statuses,
          description: "The job's status when the cancel was asked for, or how it had ended",
        },
        cancelRequested: {
          type: "boolean",
          description:
            "false when the job had already ended: the answer then says how (result or error), with no next call",
        },
        statusMessage: { type: "string" },
        pollIntervalMs: { type: "integer", minimum: 0 },
        ...outcomeProperties,
        next: nextCallSchema,
      },
      required: ["taskId", "status", "cancelRequested"],
    },
  },
};

/** The tools/list entries of the three tools, their input schemas written from the zod ones. */
export function handleToolDescriptors(): ToolDescriptor[] {
  return handleToolNames.map((name) => ({
    ...descriptors[name],
    inputSchema: inputJsonSchema(handleToolInputSchemas[name]),
  }));
}
