import { isPlainObject } from "@jobtasks/core/adapter-utils";

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

export function toPortableJsonSchema(schema: Schema): Schema {
  return rewrite(schema, undefined) as Schema;
}

function rewrite(node: unknown, keyword: string | undefined): unknown {
  if (!isPlainObject(node)) return node;
  if (keyword !== undefined && freeFormKeywords.has(keyword) && Object.keys(node).length === 0) return true;
  return splitTypeUnion(mapSubschemas(node, rewrite));
}

/** A copy of the schema with each of its direct subschemas (in schema positions only) replaced by `map`'s answer. */
function mapSubschemas(node: Schema, map: (child: unknown, keyword: string) => unknown): Schema {
  const copy: Schema = { ...node };
  for (const key of schemaKeywords) {
    if (!(key in copy)) continue;
    const value = copy[key];
    copy[key] = key === "items" && Array.isArray(value) ? value.map((item) => map(item, key)) : map(value, key);
  }
  for (const key of schemaListKeywords) {
    const list = copy[key];
    if (Array.isArray(list)) copy[key] = list.map((item) => map(item, key));
  }
  for (const key of schemaMapKeywords) {
    const entries = copy[key];
    if (isPlainObject(entries))
      copy[key] = Object.fromEntries(Object.entries(entries).map(([name, item]) => [name, map(item, key)]));
  }
  return copy;
}

/**
 * An input schema whose every argument also says its limits and default in its description, written from
 * the keywords: some clients (Codex) drop `default`, `minimum` and `maximum` before the model sees the
 * schema, and the description is what reaches it. The keywords stay, for clients that read them.
 */
export function withLimitsInDescriptions(schema: Schema): Schema {
  const copy = mapSubschemas(schema, (child) => (isPlainObject(child) ? withLimitsInDescriptions(child) : child));
  const limits = limitPhrases(copy);
  if (limits.length === 0) return copy;
  const description = typeof copy["description"] === "string" ? copy["description"].trim() : "";
  const said = limits.join("; ");
  if (description === "") return { ...copy, description: `${said.charAt(0).toUpperCase()}${said.slice(1)}` };
  return {
    ...copy,
    description: /[.!?]$/.test(description)
      ? `${description} ${said.charAt(0).toUpperCase()}${said.slice(1)}.`
      : `${description}; ${said}`,
  };
}

/** "from 1 to 50", "at most 64 characters", "default 3": the node's limits in words, values as JSON. */
function limitPhrases(schema: Schema): string[] {
  const number = (keyword: string) => (typeof schema[keyword] === "number" ? (schema[keyword] as number) : undefined);
  const phrases: string[] = [];
  const [minimum, maximum] = [number("minimum"), number("maximum")];
  if (minimum !== undefined && maximum !== undefined) phrases.push(`from ${minimum} to ${maximum}`);
  else if (minimum !== undefined) phrases.push(`at least ${minimum}`);
  else if (maximum !== undefined) phrases.push(`at most ${maximum}`);
  if (number("exclusiveMinimum") !== undefined) phrases.push(`greater than ${number("exclusiveMinimum")}`);
  if (number("exclusiveMaximum") !== undefined) phrases.push(`less than ${number("exclusiveMaximum")}`);
  const counted = (low: number | undefined, high: number | undefined, unit: string) => {
    const units = (count: number) => (count === 1 ? unit : `${unit}s`);
    if (low !== undefined && high !== undefined) phrases.push(`${low} to ${high} ${units(high)}`);
    else if (low !== undefined) phrases.push(`at least ${low} ${units(low)}`);
    else if (high !== undefined) phrases.push(`at most ${high} ${units(high)}`);
  };
  counted(number("minLength"), number("maxLength"), "character");
  counted(number("minItems"), number("maxItems"), "item");
  if ("default" in schema) phrases.push(`default ${JSON.stringify(schema["default"])}`);
  return phrases;
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
