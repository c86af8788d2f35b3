import { AdapterConfigError, z } from "@jobtasks/core";
import type { ToolOptions, TypedField } from "./tool-options-schema.js";

/**
 * Tool input schemas. The core validates arguments with the tool's zod schema before doStart, and
 * publishes z.toJSONSchema of it, so both config forms end up as zod: the JSON Schema through
 * z.fromJSONSchema, the small typed form by first writing it out as JSON Schema.
 */

type JsonSchemaObject = Record<string, unknown>;

function typedFieldToJsonSchema(field: TypedField): { schema: JsonSchemaObject; required: boolean } {
  if (typeof field === "string") {
    const optional = field.endsWith("?");
    const typeName = optional ? field.slice(0, -1) : field;
    const schema = typeName.endsWith("[]")
      ? { type: "array", items: { type: typeName.slice(0, -2) } }
      : { type: typeName };
    return { schema, required: !optional };
  }
  const { required, items, ...rest } = field;
  const schema: JsonSchemaObject = { ...rest };
  if (field.type === "array") schema["items"] = { type: items ?? "string" };
  for (const key of Object.keys(schema)) if (schema[key] === undefined) delete schema[key];
  return { schema, required: required ?? field.default === undefined };
}

/** The typed form written out as a JSON Schema object that refuses unknown fields. */
export function typedFormToJsonSchema(form: Record<string, TypedField>): JsonSchemaObject {
  const properties: Record<string, JsonSchemaObject> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(form)) {
    const converted = typedFieldToJsonSchema(field);
    properties[name] = converted.schema;
    if (converted.required) required.push(name);
  }
  return { type: "object", properties, required, additionalProperties: false };
}

/** Build the zod schema for one tool; `option` names the config field in errors. */
export function buildInputSchema(tool: ToolOptions, option: string): z.ZodType {
  const jsonSchema = tool.inputSchema ?? typedFormToJsonSchema(tool.input ?? {});
  try {
    return z.fromJSONSchema(jsonSchema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    throw new AdapterConfigError(option, "this JSON Schema cannot be used as a tool input schema", { cause: error });
  }
}

/** The optional output schema, converted the same way. */
export function buildOutputSchema(tool: ToolOptions, option: string): z.ZodType | undefined {
  if (!tool.outputSchema) return undefined;
  try {
    return z.fromJSONSchema(tool.outputSchema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    throw new AdapterConfigError(option, "this JSON Schema cannot be used as an output schema", { cause: error });
  }
}
