import type { z } from "@jobtasks/core";
import { formSchemaProblem } from "./form-schema.js";
import type { ResolvedRestOptions } from "./rest-options.js";
import { parseTemplate } from "./template.js";

/**
 * The rules of a REST config that no single field's schema can check: a reference kind and the templates
 * it needs, status values listed twice, duplicate tool names, an input form that can check its answers,
 * the one secret and the one delivery id source of the callbacks.
 * They run once on the whole config, after presets and defaults, when the adapter is built.
 */

function lower(values: readonly string[]): string[] {
  return values.map((value) => value.toLowerCase());
}

/**
 * `{{*job.id}}` splits an id like `operations/abc` into path segments under baseUrl; a URL reference (an
 * Operation-Location path with its query) cannot be split so. The template that works is the same one
 * without the star: `{{job.id}}:cancel` adds to the job URL's path and keeps its query.
 */
function checkUrlReferenceTemplates(options: ResolvedRestOptions, context: z.RefinementCtx): void {
  const urls: [string[], string | undefined][] = [
    [["status", "url"], options.status.url],
    [["result", "url"], options.result.url],
    [["inputRequired", "respond", "url"], options.inputRequired?.respond.url],
    [["cancel", "url"], options.cancel?.url],
  ];
  for (const [path, template] of urls) {
    const split =
      template !== undefined &&
      parseTemplate(template).some(
        (part) => part.kind === "value" && part.multiSegment && /^\$?\.?job\.id$/.test(part.path.trim()),
      );
    if (!split) continue;
    const suggestion = template.replace(/\{\{\s*\*\s*/g, "{{");
    context.addIssue({
      code: "custom",
      path,
      message: `the job reference is a URL, which {{*job.id}} cannot split into path segments: write "${suggestion}" (the text after {{job.id}} is added to the job URL's path, its query kept)`,
    });
  }
}

/** The callbacks' fields that only make sense together, or only one at a time. */
function checkEvents(events: NonNullable<ResolvedRestOptions["events"]>, context: z.RefinementCtx): void {
  const verification = events.verification;
  if ((verification.secret === undefined) === (verification.secretEnv === undefined)) {
    context.addIssue({
      code: "custom",
      path: ["events", "verification", verification.secret === undefined ? "secretEnv" : "secret"],
      message: "give exactly one of secret or secretEnv (the name of an environment variable)",
    });
  }
  if (verification.scheme === "hmac-sha256" && verification.toleranceSeconds !== undefined) {
    if (verification.timestampHeader === undefined)
      context.addIssue({
        code: "custom",
        path: ["events", "verification", "toleranceSeconds"],
        message: "only with timestampHeader: without a signed timestamp there is no time to check",
      });
  }
  if (events.deliveryIdHeader !== undefined && events.deliveryIdPath !== undefined) {
    context.addIssue({
      code: "custom",
      path: ["events", "deliveryIdPath"],
      message: "give deliveryIdHeader or deliveryIdPath, not both",
    });
  }
}

/** Rules that span fields, each reported at the field a user would fix. */
export function checkConsistency(options: ResolvedRestOptions, context: z.RefinementCtx): void {
  const kind = options.reference.kind ?? (options.reference.header ? "url" : "id");
  if (kind === "id" && options.status.url === undefined) {
    context.addIssue({
      code: "custom",
      path: ["status", "url"],
      message: 'required when the reference is a job id (e.g. "/jobs/{{job.id}}")',
    });
  }
  if (kind === "url") checkUrlReferenceTemplates(options, context);
  const seen = new Map<string, string>();
  for (const list of ["working", "inputRequired", "completed", "cancelled", "failed"] as const) {
    for (const value of lower(options.status[list])) {
      const earlier = seen.get(value);
      if (earlier && earlier !== list) {
        context.addIssue({
          code: "custom",
          path: ["status", list],
          message: `"${value}" is already listed in status.${earlier}`,
        });
      }
      seen.set(value, list);
    }
  }
  for (const value of lower(options.status.errorValues)) {
    const listedIn = seen.get(value);
    if (listedIn && listedIn !== "completed") {
      context.addIssue({
        code: "custom",
        path: ["status", "errorValues"],
        message: `"${value}" is listed in status.${listedIn}, but error values are completed values`,
      });
    }
  }
  const names = new Set<string>();
  options.tools.forEach((tool, index) => {
    if (names.has(tool.name))
      context.addIssue({
        code: "custom",
        path: ["tools", index, "name"],
        message: `duplicate tool name "${tool.name}"`,
      });
    names.add(tool.name);
  });
  if (options.inputRequired && !options.inputRequired.schema && !options.inputRequired.schemaPath) {
    context.addIssue({
      code: "custom",
      path: ["inputRequired", "schema"],
      message: "give schema or schemaPath for the form",
    });
  }
  const formSchema = options.inputRequired?.schema;
  const formProblem = formSchema ? formSchemaProblem(formSchema) : undefined;
  if (formProblem) {
    // Answers are checked with this schema; one that cannot check them must not reach a person.
    context.addIssue({
      code: "custom",
      path: ["inputRequired", "schema", ...formProblem.path],
      message: formProblem.message,
    });
  }
  if (options.inputRequired && options.inputRequired.respond.declineBody === undefined) {
    context.addIssue({
      code: "custom",
      path: ["inputRequired", "respond", "declineBody"],
      message:
        "required: the body that resolves a question declined or dismissed (a question must not be presented again after an answer)",
    });
  }
  const respondUrl = options.inputRequired?.respond.url ?? "";
  const answerField = parseTemplate(respondUrl).find(
    (part) => part.kind === "value" && /^\$?\.?answer\b(?!\.action$)/.test(part.path.trim()),
  );
  if (answerField) {
    context.addIssue({
      code: "custom",
      path: ["inputRequired", "respond", "url"],
      message:
        "cannot use answer fields (only answer.action): a decline is sent to the same URL without them; put answers in the body or query",
    });
  }
  if (options.status.inputRequired.length > 0 && !options.inputRequired) {
    context.addIssue({
      code: "custom",
      path: ["inputRequired"],
      message: "required when status.inputRequired lists values",
    });
  }
  if (options.events) checkEvents(options.events, context);
}
