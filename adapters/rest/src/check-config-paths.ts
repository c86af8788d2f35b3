import type { z } from "@jobtasks/core";
import { pathSyntaxProblem } from "./json-path.js";
import type { ResolvedRestOptions } from "./rest-options.js";
import { parseTemplate } from "./template.js";

/**
 * Checks every JSONPath of a config once, when the adapter is built: the fields that are paths and the
 * placeholders of every template. A syntax error is the config's fault and is reported at its field;
 * once past this check, a path that throws while reading an answer is the answer's fault (no match).
 */

/** Fields holding a bare JSONPath, by their position in the options (`*` = any key or index). */
const pathFields = [
  "reference.path",
  "status.field.*",
  "status.updatedAtPath",
  "progress.percentPath",
  "result.path",
  "result.fields.*",
  "result.fields.*.path",
  "result.errorPath",
  "result.logsPath",
  "inputRequired.keyPath",
  "inputRequired.schemaPath",
  "cancel.recognizedBy.path",
  "events.jobIdPath",
  "events.statusPath",
  "events.updatedAtPath",
  "events.deliveryIdPath",
].map((field) => field.split("."));

/**
 * Subtrees that are not templates, whose text is never rendered: JSON Schemas, and the callbacks' secret
 * (which must not be quoted in a config error for holding `{{`).
 */
const unrenderedFields = [
  "tools.*.inputSchema",
  "tools.*.input",
  "tools.*.outputSchema",
  "inputRequired.schema",
  "events.verification.secret",
].map((field) => field.split("."));

function matches(pattern: readonly string[], location: readonly (string | number)[]): boolean {
  return (
    pattern.length === location.length &&
    pattern.every((part, index) => part === "*" || part === String(location[index]))
  );
}

export function checkConfigPaths(options: ResolvedRestOptions, context: z.RefinementCtx): void {
  const report = (location: (string | number)[], path: string, problem: string) =>
    context.addIssue({
      code: "custom",
      path: location,
      message: `the JSONPath ${path} cannot be evaluated: ${problem}`,
    });
  const walk = (value: unknown, location: (string | number)[]): void => {
    if (unrenderedFields.some((pattern) => matches(pattern, location))) return;
    if (typeof value === "string") {
      const whole = pathFields.some((pattern) => matches(pattern, location));
      const paths = whole
        ? [value]
        : parseTemplate(value).flatMap((part) => (part.kind === "value" ? [part.path] : []));
      for (const path of paths) {
        const problem = pathSyntaxProblem(path);
        if (problem !== undefined) report(location, path, problem);
      }
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => walk(item, [...location, index]));
    } else if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) walk(item, [...location, key]);
    }
  };
  walk(options, []);
}
