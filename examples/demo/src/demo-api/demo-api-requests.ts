import { z } from "@jobtasks/core";
import type { DemoJobRequest } from "./demo-job-runner.js";

/**
 * The bodies the demo API accepts. Unknown keys are ignored, as many job APIs do; the demo adapter's tool
 * schema is the strict one, because that is what an agent fills in.
 */

const createJobBody = z.object({
  steps: z.number().int().min(1).max(50).default(3),
  stepMs: z.number().int().min(0).max(600_000).default(1000),
  approval: z.boolean().default(false),
  fail: z.boolean().default(false),
  name: z.string().min(1).max(100).default("demo-pipeline"),
});

const approvalBody = z.object({
  approvalId: z.string().min(1),
  approve: z.boolean(),
  comment: z.string().max(2000).optional(),
});

const faultBody = z.object({
  status: z.number().int().min(400).max(599),
  count: z.number().int().min(1).max(1000).default(1),
  /** Seconds sent as Retry-After; 429 and 503 get 1 when not given. */
  retryAfterSeconds: z.number().int().min(0).max(3600).optional(),
});

export type ApprovalAnswer = z.output<typeof approvalBody>;
export type FaultRequest = z.output<typeof faultBody>;

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** "<field>: <problem>", the one message format of the API's 400 answers. */
function parseWith<T>(schema: z.ZodType<T>, body: unknown): Parsed<T> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join(".") : "body";
  return { ok: false, message: `${field}: ${issue?.message ?? "invalid"}` };
}

export function parseCreateJobBody(body: unknown): Parsed<DemoJobRequest> {
  return parseWith(createJobBody, body);
}

export function parseApprovalBody(body: unknown): Parsed<ApprovalAnswer> {
  return parseWith(approvalBody, body);
}

export function parseFaultBody(body: unknown): Parsed<FaultRequest> {
  return parseWith(faultBody, body);
}
