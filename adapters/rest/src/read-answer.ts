import { z } from "zod";
import type { ElicitationFormRequest, ElicitationResponse } from "@jobtasks/core";

/**
 * Reading an elicitation answer against the form that was presented. The core checks only the answer's
 * envelope; its content comes from a person's client and is checked here before any of it is templated
 * into a request. Fields the form does not define are dropped.
 */

export type ReadAnswer =
  | { kind: "accepted"; content: Record<string, unknown> }
  /** Declined or dismissed in the client. */
  | { kind: "declined" }
  /** Accepted, but the content does not fit the form: `problem` names the fields, for the log. */
  | { kind: "unclear"; problem: string };

export function readAnswer(form: ElicitationFormRequest, response: ElicitationResponse): ReadAnswer {
  if (response.action !== "accept") return { kind: "declined" };
  const schema = form.params.requestedSchema;
  const content = response.content ?? {};
  const picked = Object.fromEntries(Object.keys(schema.properties ?? {}).filter((name) => Object.hasOwn(content, name)).map((name) => [name, content[name]]));
  let validator: z.ZodType;
  try {
    validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return { kind: "unclear", problem: "the form's schema cannot be used to check the answer" };
  }
  const parsed = validator.safeParse(picked);
  if (parsed.success) return { kind: "accepted", content: parsed.data as Record<string, unknown> };
  const problem = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(answer)"}: ${issue.message}`).join("; ");
  return { kind: "unclear", problem };
}
