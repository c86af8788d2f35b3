/**
 * Rewrites of a tool's JSON Schema that keep its meaning and let clients with a narrower schema dialect
 * (an OpenAPI subset, one `type` per schema) take it whole; MCP Inspector warns about the same spots.
 * - `type: ["string", "null"]` (zod's nullable, unions of primitives) becomes `anyOf` of single types;
 * - `{}` (accepts anything) as additionalProperties and its kin becomes `true`, the same contract spelt
 *   the way those keywords allow, rather than a schema with no validation keyword.
 * Only schema positions are visited: `default`, `enum`, `const` and `examples` hold data and stay as they are.
 */

const freeFormKeywords = new Set([
  "additionalProperties",
  "unevaluatedProperties",
  "additionalItems",
  "unevaluatedItems",
]);
const schemaKeywords = [
  "items",
  "contains",
  "not",
  "propertyNames",
  "if",
  "then",
  "else",
  "contentSchema",
  ...freeFormKeywords,
];
const schemaListKeywords = ["allOf", "anyOf", "oneOf", "prefixItems"];
const schemaMapKeywords = ["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"];

type Schema = Record<string, unknown>;

function isSchemaObject(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function toPortableJsonSchema(schema: Schema): Schema {
  return rewrite(schema, undefined) as Schema;
}

function rewrite(node: unknown, keyword: string | undefined): unknown {
  if (!isSchemaObject(node)) return node;
  if (keyword !== undefined && freeFormKeywords.has(keyword) && Object.keys(node).length === 0) return true;
  const copy: Schema = { ...node };
  for (const key of schemaKeywords) {
    if (!(key in copy)) continue;
    const value = copy[key];
    copy[key] = key === "items" && Array.isArray(value) ? value.map((item) => rewrite(item, key)) : rewrite(value, key);
  }
  for (const key of schemaListKeywords) {
    const list = copy[key];
    if (Array.isArray(list)) copy[key] = list.map((item) => rewrite(item, key));
  }
  for (const key of schemaMapKeywords) {
    const map = copy[key];
    if (isSchemaObject(map))
      copy[key] = Object.fromEntries(Object.entries(map).map(([name, item]) => [name, rewrite(item, key)]));
  }
  return splitTypeUnion(copy);
}

/** `type: [a, b]` as `anyOf: [{type: a}, {type: b}]`; keywords for one type keep applying only to it. */
function splitTypeUnion(schema: Schema): Schema {
  const { type, ...rest } = schema;
  if (!Array.isArray(type)) return schema;
  if (type.length === 1) return { ...rest, type: type[0] };
  const branches = type.map((single) => ({ type: single }));
  if (!("anyOf" in rest)) return { ...rest, anyOf: branches };
  // Both a union of types and an anyOf: the value must satisfy each.
  const { anyOf, ...others } = rest;
  return {
    ...others,
    allOf: [...(Array.isArray(others["allOf"]) ? others["allOf"] : []), { anyOf }, { anyOf: branches }],
  };
}
