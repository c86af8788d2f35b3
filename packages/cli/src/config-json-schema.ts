import { z } from "@jobtasks/core";
import type { AdapterDefinition } from "@jobtasks/core";
import { builtInAdapterPackages } from "./adapter-registry.js";
import { configFileSchema } from "./config-schema.js";

/** Where the generated schema is kept in the jobtasks package (and the repository): see `pnpm schema`. */
export const configJsonSchemaFile = "jobtasks.config.schema.json";

type JsonSchema = Record<string, unknown>;

/**
 * A JSON Schema of the config file, for editor completion and checks (`# yaml-language-server: $schema=`
 * in a YAML file, `"$schema"` in a JSON one). It is generated from the zod schemas the command itself
 * validates with, so it cannot say something the command does not; per built-in kind, `options` is
 * described by that adapter's own options schema, as far as JSON Schema can express it (a refinement,
 * such as one option requiring another, stays the command's to check).
 */
export function configJsonSchema(definitions: Readonly<Record<string, AdapterDefinition>>): JsonSchema {
  const schema = toJsonSchema(configFileSchema);
  const entry = (schema["properties"] as { adapters: { items: JsonSchema } }).adapters.items;
  const entryProperties = entry["properties"] as Record<string, JsonSchema>;
  entryProperties["kind"] = { ...entryProperties["kind"], enum: Object.keys(definitions) };
  const definitionsOfKinds: Record<string, JsonSchema> = {};
  entry["allOf"] = Object.entries(definitions).map(([kind, definition]) => {
    const {
      $schema: _ignored,
      $defs,
      ...options
    } = toJsonSchema(definition.optionsEditorSchema ?? definition.optionsSchema);
    // A recursive part of a kind's options is written as a local definition; this schema is embedded
    // below the root, so its definitions move to the root's, named after the kind, and its references follow.
    const renamed = (name: string) => `${kind}.${name}`;
    for (const [name, part] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>))
      definitionsOfKinds[renamed(name)] = withReferencesRenamed(part, renamed);
    return {
      if: { properties: { kind: { const: kind } }, required: ["kind"] },
      then: { properties: { options: withReferencesRenamed(options, renamed) } },
    };
  });
  const rootDefinitions = { ...((schema["$defs"] ?? {}) as JsonSchema), ...definitionsOfKinds };
  return {
    $schema: schema["$schema"],
    title: "jobtasks config file",
    ...withoutKey(withoutKey(schema, "$schema"), "$defs"),
    ...(Object.keys(rootDefinitions).length > 0 ? { $defs: rootDefinitions } : {}),
  };
}

/** A copy of a schema whose local references (`#/$defs/name`) point to renamed definitions. */
function withReferencesRenamed(schema: JsonSchema, renamed: (name: string) => string): JsonSchema {
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (typeof value !== "object" || value === null) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        key === "$ref" && typeof item === "string" && item.startsWith("#/$defs/")
          ? `#/$defs/${renamed(item.slice(8))}`
          : visit(item),
      ]),
    );
  };
  return visit(schema) as JsonSchema;
}

/** The schema for every built-in kind, their packages loaded from where jobtasks is installed. */
export async function builtInConfigJsonSchema(): Promise<JsonSchema> {
  const definitions: Record<string, AdapterDefinition> = {};
  for (const [kind, packageName] of Object.entries(builtInAdapterPackages)) {
    definitions[kind] = ((await import(packageName)) as { adapterDefinition: AdapterDefinition }).adapterDefinition;
  }
  return configJsonSchema(definitions);
}

function toJsonSchema(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, {
    // What a file may contain (before defaults and transforms), not what the command makes of it.
    io: "input",
    // A transform or a custom check has no JSON Schema: it is left open rather than failing the build.
    unrepresentable: "any",
    override: ({ jsonSchema }) => {
      // zod writes every integer's implicit ±(2^53 − 1) range; it tells the reader of a config nothing.
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      allowEnvironmentReference(jsonSchema as JsonSchema);
    },
  }) as JsonSchema;
}

/** String constraints that a `${NAME}` reference, read from the environment at start-up, would not meet. */
const stringConstraints = ["pattern", "format", "enum", "const", "minLength", "maxLength"];

/**
 * The file is checked after `${NAME}` references in its strings are replaced; the schema describes the
 * file as written, so a constrained string also accepts a value that holds a reference.
 */
function allowEnvironmentReference(jsonSchema: JsonSchema): void {
  if (jsonSchema["type"] !== "string" || !stringConstraints.some((key) => key in jsonSchema)) return;
  const constrained: JsonSchema = { type: "string" };
  for (const key of stringConstraints) {
    if (key in jsonSchema) constrained[key] = jsonSchema[key];
    delete jsonSchema[key];
  }
  delete jsonSchema["type"];
  jsonSchema["anyOf"] = [constrained, { type: "string", pattern: "\\$\\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\\}" }];
}

function withoutKey(object: JsonSchema, key: string): JsonSchema {
  const { [key]: _ignored, ...rest } = object;
  return rest;
}
