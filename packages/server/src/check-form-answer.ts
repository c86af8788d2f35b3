import { z } from "zod";
import type { ElicitationFormRequest, ElicitationResponse, InputRequest } from "@jobtasks/core";

export type FormAnswerCheck = { ok: true; response: ElicitationResponse } | { ok: false; field: string; problem: string };

/**
 * Check task_answer's content against the question's own form (its requestedSchema) before anything is
 * sent: a model's answer is untrusted input, and a wrong field must come back as an error it can fix,
 * not reach the upstream as a rejection. zod reads the JSON Schema, so the form's rules are applied as
 * written (types, enums, bounds, required fields).
 */
export function checkFormAnswer(
  request: InputRequest,
  action: ElicitationResponse["action"],
  content: Record<string, unknown> | undefined,
): FormAnswerCheck {
  // Only an accepted form carries content; a decline or dismissal sends none.
  if (action !== "accept") return { ok: true, response: { action } };
  let schema: z.ZodType;
  try {
    schema = z.fromJSONSchema((request as ElicitationFormRequest).params.requestedSchema as never);
  } catch {
    // A form zod cannot read (an adapter's unusual schema): the adapter's own check of the answer applies.
    return { ok: true, response: { action, content: (content ?? {}) as ElicitationResponse["content"] & object } };
  }
  const parsed = schema.safeParse(content ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = ["content", ...issue.path.map(String)].join(".");
    return { ok: false, field, problem: issue.message };
  }
  return { ok: true, response: { action, content: parsed.data as ElicitationResponse["content"] & object } };
}
