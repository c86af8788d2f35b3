/**
 * The portability rules MCP Inspector 2.x applies to tool schemas (its tools/list lint), restated here so
 * a test can hold every built-in tool to them: a client that maps schemas onto a narrower dialect (an
 * OpenAPI subset, a single-`type` form) must lose nothing.
 *
 * - boolean-schema: a bare `true`/`false` where a schema object belongs (allowed only as the value of
 *   additionalProperties, unevaluatedProperties, additionalItems, unevaluatedItems);
 * - type-union: `type` given as an array;
 * - remote-ref: a `$ref` that points outside the document;
 * - untyped-schema: a schema object with no keyword that constrains the value (except directly under `not`).
 */

export interface PortabilityFinding {
  rule: "boolean-schema" | "type-union" | "remote-ref" | "untyped-schema";
  path: string;
}

const booleanAllowedUnder = new Set([
  "additionalProperties",
  "unevaluatedProperties",
  "additionalItems",
  "unevaluatedItems",
]);
const singleSchemaKeywords = [
  "items",
  "contains",
  "not",
  "propertyNames",
  "if",
  "then",
  "else",
  "additionalProperties",
  "unevaluatedProperties",
  "additionalItems",
  "unevaluatedItems",
  "contentSchema",
];
const schemaListKeywords = ["allOf", "anyOf", "oneOf", "prefixItems"];
const schemaMapKeywords = [
  "properties",
  "patternProperties",
  "dependentSchemas",
  "dependencies",
  "$defs",
  "definitions",
];
/** Keywords that narrow what a value may be; `if` counts only with a `then` or an `else`. */
const constrainingKeywords = new Set([
  "type",
  "enum",
  "const",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "format",
  "contentMediaType",
  "contentEncoding",
  "contentSchema",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxContains",
  "minContains",
  "maxProperties",
  "minProperties",
  "required",
  "dependentRequired",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "items",
  "prefixItems",
  "contains",
  "additionalItems",
  "unevaluatedItems",
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "propertyNames",
  "dependentSchemas",
  "dependencies",
  "$ref",
  "$dynamicRef",
  "$recursiveRef",
]);
const deepestLevel = 64;

type Schema = Record<string, unknown>;

function isSchemaObject(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every finding in one tool schema, each with a dotted path from the schema's root. */
export function findPortabilityProblems(schema: unknown): PortabilityFinding[] {
  const findings: PortabilityFinding[] = [];
  visit(schema, "", undefined, 0, findings);
  return findings;
}

function visit(
  node: unknown,
  path: string,
  keyword: string | undefined,
  depth: number,
  findings: PortabilityFinding[],
): void {
  if (depth > deepestLevel) return;
  if (typeof node === "boolean") {
    if (keyword === undefined || !booleanAllowedUnder.has(keyword)) findings.push({ rule: "boolean-schema", path });
    return;
  }
  if (!isSchemaObject(node)) return;
  if (Array.isArray(node["type"])) findings.push({ rule: "type-union", path });
  const ref = node["$ref"];
  if (typeof ref === "string" && ref !== "" && !ref.startsWith("#")) findings.push({ rule: "remote-ref", path });
  const constrains =
    Object.keys(node).some((key) => constrainingKeywords.has(key)) ||
    ("if" in node && ("then" in node || "else" in node));
  if (!constrains && keyword !== "not") findings.push({ rule: "untyped-schema", path });

  const at = (key: string) => (path === "" ? key : `${path}.${key}`);
  for (const key of schemaMapKeywords) {
    const map = node[key];
    if (!isSchemaObject(map)) continue;
    for (const [name, child] of Object.entries(map)) visit(child, at(`${key}.${name}`), key, depth + 1, findings);
  }
  for (const key of schemaListKeywords) {
    const list = node[key];
    if (Array.isArray(list))
      list.forEach((child, index) => visit(child, `${at(key)}[${index}]`, key, depth + 1, findings));
  }
  for (const key of singleSchemaKeywords) {
    if (!(key in node)) continue;
    const child = node[key];
    if (key === "items" && Array.isArray(child))
      child.forEach((item, index) => visit(item, `${at(key)}[${index}]`, key, depth + 1, findings));
    else visit(child, at(key), key, depth + 1, findings);
  }
}
