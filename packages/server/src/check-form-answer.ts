import { z } from "@jobtasks/core";
import type { ElicitationFormRequest, ElicitationResponse, InputRequest } from "@jobtasks/core";

export type FormAnswerCheck =
  | { ok: true; response: ElicitationResponse }
  | { ok: false; field: string; problem: string };

/**
 * Check task_answer's content against the question's own form (its requestedSchema) before anything is
 * sent: a model's answer is untrusted input, and a wrong field must come back as an error it can fix,
 * not reach the upstream as a rejection. zod reads the JSON Schema, so the form's rules are applied as
 * written (types, enums, bounds, required fields), except defaults: a default is where a form's UI
 * starts, not an answer, so a missing required field is refused rather than filled in.
 */
export function checkFormAnswer(
  request: InputRequest,
  action: ElicitationResponse["action"],
  content: Record<string, unknown> | undefined,
): FormAnswerCheck {
  // Only an accepted form carries content; a decline or dismissal sends none.
  if (action !== "accept") return { ok: true, response: { action } };
  const missing = missingRequiredField(request, content);
  if (missing !== undefined)
    return { ok: false, field: `content.${missing}`, problem: "required, and missing from the answer" };
  let schema: z.ZodType;
  try {
    schema = z.fromJSONSchema(withoutDefaults((request as ElicitationFormRequest).params.requestedSchema) as never);
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

/**
 * A field name task_answer refuses before anything else: `__proto__` as an own key (JSON.parse makes one)
 * is skipped by zod's checks of the content's values and dropped from their output, so its value would
 * go unchecked and the answer would lose a field without a word.
 */
export function unsafeFieldName(content: unknown): string | undefined {
  if (typeof content !== "object" || content === null) return undefined;
  return Object.hasOwn(content, "__proto__") ? "__proto__" : undefined;
}

/**
 * The first field the form requires that an accepted answer leaves out, or undefined. tasks/update uses it
 * too: adapters read a missing approval as a rejection, so an accept without it must never reach them.
 */
export function missingRequiredField(
  request: InputRequest,
  content: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  const required = (request as Partial<ElicitationFormRequest>).params?.requestedSchema?.required ?? [];
  return required.find((name) => content === undefined || !Object.hasOwn(content, name) || content[name] === undefined);
}

/** The form's schema with each field's default removed (forms are flat: defaults sit on the properties). */
function withoutDefaults(schema: ElicitationFormRequest["params"]["requestedSchema"]): Record<string, unknown> {
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([name, property]) => {
      const { default: _hint, ...rest } = property as Record<string, unknown>;
      return [name, rest];
    }),
  );
  return { ...schema, properties };
}
