import { z } from "@jobtasks/core";
import { isPlainObject } from "@jobtasks/core/adapter-utils";

/**
 * Checking an elicitation form's JSON Schema before it is presented. A form whose answers cannot be
 * checked must never reach a person: an accept could then be neither verified nor safely turned into
 * anything else. MCP forms are flat (string, number, integer, boolean, or an array of enum choices), and
 * their schema must compile with z.fromJSONSchema, with which the answer is checked.
 */

/** Why a form schema cannot be used, and the property at fault (when one is). */
export interface FormSchemaProblem {
  /** Path inside the schema: ["properties", "ticket"], or [] for the schema as a whole. */
  path: (string | number)[];
  message: string;
}

type JsonSchemaInput = Parameters<typeof z.fromJSONSchema>[0];

/** The validator for a form's answers. Throws when the schema does not compile (see formSchemaProblem). */
export function compileFormSchema(schema: object): z.ZodType {
  return z.fromJSONSchema(schema as JsonSchemaInput);
}

function compileProblem(schema: object): string | undefined {
  try {
    compileFormSchema(schema);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Why a property is not a flat form field (a nested object, an array of objects), or undefined. */
function flatnessProblem(property: Record<string, unknown>): string | undefined {
  const type = property["type"];
  if (type === "object" || (Array.isArray(type) && type.includes("object")))
    return "a form field cannot be an object (MCP forms are flat)";
  if (type === "array") {
    const items = property["items"];
    const itemType = isPlainObject(items) ? items["type"] : undefined;
    if (itemType === "object" || itemType === "array") return "a form's list field holds choices, not objects or lists";
  }
  return undefined;
}

/**
 * Why `schema` cannot be presented as a form, or undefined when it can. Each property is compiled on its
 * own first, so the problem names the property at fault.
 */
export function formSchemaProblem(schema: { properties?: Record<string, unknown> }): FormSchemaProblem | undefined {
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (!isPlainObject(property)) return { path: ["properties", name], message: "expected a JSON Schema object" };
    const flat = flatnessProblem(property);
    if (flat) return { path: ["properties", name], message: flat };
    const problem = compileProblem({ type: "object", properties: { [name]: property } });
    if (problem) return { path: ["properties", name], message: `does not compile: ${problem}` };
  }
  const problem = compileProblem(schema);
  return problem ? { path: [], message: `does not compile: ${problem}` } : undefined;
}
