import { InvalidToolInputError, type ElicitationFormRequest, type ElicitationResponse, type z } from "@jobtasks/core";
import { compileFormSchema } from "./form-schema.js";

/**
 * Reading an elicitation answer against the form that was presented. The core checks only the answer's
 * envelope; its content comes from a person's client and is checked here before any of it is templated
 * into a request. Fields the form does not define are dropped. An accept that does not fit the form is
 * refused (InvalidToolInputError naming `<key>.<field>`, which the server answers with -32602) and the
 * question stays open: an accept is never turned into a decline.
 */

export type ReadAnswer =
  | { kind: "accepted"; content: Record<string, unknown> }
  /** Declined or dismissed in the client: the decline body resolves the question upstream. */
  | { kind: "declined" };

export function readAnswer(key: string, form: ElicitationFormRequest, response: ElicitationResponse): ReadAnswer {
  if (response.action !== "accept") return { kind: "declined" };
  const schema = form.params.requestedSchema;
  const content = response.content ?? {};
  const picked = Object.fromEntries(
    Object.keys(schema.properties ?? {})
      .filter((name) => Object.hasOwn(content, name))
      .map((name) => [name, content[name]]),
  );
  let validator: z.ZodType;
  try {
    validator = compileFormSchema(schema);
  } catch (error) {
    // Only an upstream-supplied form can get here (a config form is compiled when the adapter is built,
    // and an upstream form that does not compile is replaced by the config's when there is one).
    throw new InvalidToolInputError(
      key,
      "the upstream's form cannot be used to check an accepted answer, so it cannot be delivered; decline it, or answer in the upstream's own interface",
      { cause: error },
    );
  }
  const parsed = validator.safeParse(picked);
  if (parsed.success) return { kind: "accepted", content: parsed.data as Record<string, unknown> };
  const issue = parsed.error.issues[0];
  const field = issue && issue.path.length > 0 ? `${key}.${issue.path.join(".")}` : key;
  // The field already names the first issue's path; further issues name their own.
  const problem = parsed.error.issues
    .map((each, index) =>
      index > 0 && each.path.length > 0 ? `${each.path.join(".")}: ${each.message}` : each.message,
    )
    .join("; ");
  throw new InvalidToolInputError(field, problem, { cause: parsed.error });
}
