import { z } from "@jobtasks/core";

/** MCP tool names: 1 to 128 characters from this set, so that every client can address them. */
const toolNamePattern = /^[A-Za-z0-9_.-]{1,128}$/;

function isZodSchema(value: unknown): value is z.ZodType {
  // `_zod` marks zod 4 schemas from any copy of the package (classic or mini), where instanceof would not.
  return (
    typeof value === "object" &&
    value !== null &&
    "_zod" in value &&
    typeof (value as z.ZodType).safeParse === "function"
  );
}

/** The server publishes tool schemas as JSON Schema, and MCP requires an object at the top. */
function findJsonSchemaProblems(schema: z.ZodType, where: string, io: "input" | "output"): string[] {
  try {
    const jsonSchema = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as { type?: unknown };
    return jsonSchema.type === "object"
      ? []
      : [`${where} does not describe an object (JSON Schema type ${JSON.stringify(jsonSchema.type)})`];
  } catch (error) {
    return [`${where} cannot be converted to JSON Schema: ${(error as Error).message}`];
  }
}

function isOptionalFunction(value: unknown): boolean {
  return value === undefined || typeof value === "function";
}

/** Problems with an adapter's static shape: the contract fields, its tools and their schemas. */
export function findAdapterShapeProblems(adapter: unknown): string[] {
  if (typeof adapter !== "object" || adapter === null) return ["the adapter is not an object"];
  const candidate = adapter as Record<string, unknown>;
  const problems: string[] = [];
  if (candidate.specificationVersion !== "v1") problems.push('specificationVersion is not "v1"');
  if (typeof candidate.kind !== "string" || candidate.kind.trim() === "")
    problems.push("kind is not a non-empty string");
  if (typeof candidate.doGetStatus !== "function") problems.push("doGetStatus is not a function");
  if (!isOptionalFunction(candidate.doRespond)) problems.push("doRespond is neither absent nor a function");
  if (!isOptionalFunction(candidate.doCancel)) problems.push("doCancel is neither absent nor a function");
  if (!isOptionalFunction(candidate.close)) problems.push("close is neither absent nor a function");
  const pollIntervalMs = candidate.pollIntervalMs;
  if (
    pollIntervalMs !== undefined &&
    !(typeof pollIntervalMs === "number" && Number.isFinite(pollIntervalMs) && pollIntervalMs > 0)
  ) {
    problems.push("pollIntervalMs is not a positive number");
  }
  const retentionMs = candidate.retentionMs;
  if (retentionMs !== undefined && retentionMs !== null && !(typeof retentionMs === "number" && retentionMs > 0)) {
    problems.push("retentionMs is neither null nor a positive number");
  }
  if (candidate.refSchema !== undefined && !isZodSchema(candidate.refSchema))
    problems.push("refSchema is neither absent nor a zod schema");
  const secrets = candidate.secrets;
  if (
    secrets !== undefined &&
    typeof secrets !== "function" &&
    !(Array.isArray(secrets) && secrets.every((secret) => typeof secret === "string"))
  ) {
    problems.push("secrets is neither absent, an array of strings, nor a function");
  }

  if (!Array.isArray(candidate.tools) || candidate.tools.length === 0)
    return [...problems, "the adapter offers no tools"];
  const names = new Set<string>();
  candidate.tools.forEach((tool: Record<string, unknown>, index) => {
    const where = `tools[${index}]${typeof tool?.name === "string" ? ` (${tool.name})` : ""}`;
    if (typeof tool !== "object" || tool === null) return problems.push(`${where} is not an object`);
    if (typeof tool.name !== "string" || !toolNamePattern.test(tool.name)) {
      problems.push(`${where}.name is not a valid MCP tool name (1-128 of A-Z a-z 0-9 _ - .)`);
    } else if (names.has(tool.name)) {
      problems.push(`${where}.name is used by another tool`);
    } else {
      names.add(tool.name);
    }
    if (typeof tool.description !== "string" || tool.description.trim() === "")
      problems.push(`${where}.description is empty`);
    if (typeof tool.doStart !== "function") problems.push(`${where}.doStart is not a function`);
    if (!isZodSchema(tool.inputSchema)) problems.push(`${where}.inputSchema is not a zod schema`);
    else problems.push(...findJsonSchemaProblems(tool.inputSchema, `${where}.inputSchema`, "input"));
    if (tool.outputSchema !== undefined) {
      if (!isZodSchema(tool.outputSchema)) problems.push(`${where}.outputSchema is not a zod schema`);
      else problems.push(...findJsonSchemaProblems(tool.outputSchema, `${where}.outputSchema`, "output"));
    }
    return undefined;
  });
  return problems;
}
