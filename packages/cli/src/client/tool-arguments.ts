import type { Tool } from "@modelcontextprotocol/client";
import { UsageError } from "../usage-error.js";

/**
 * A tool's arguments from `--args JSON` and `--arg key=value` (which wins). A value is read by the type
 * the tool's input schema gives its property: a string stays text ("007" stays "007"), numbers, booleans,
 * objects and arrays are parsed. Without a schema, JSON that parses is taken as such, else text.
 */
export function readToolArguments(
  argFlags: readonly string[],
  argsJson: string | undefined,
  tool: Tool | undefined,
): Record<string, unknown> {
  let base: Record<string, unknown> = {};
  if (argsJson !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(argsJson);
    } catch (error) {
      throw new UsageError(`--args: not JSON (${(error as Error).message})`);
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
      throw new UsageError("--args: expected a JSON object of the tool's arguments");
    base = parsed as Record<string, unknown>;
  }
  const properties = (tool?.inputSchema?.properties ?? {}) as Record<string, { type?: unknown }>;
  for (const flag of argFlags) {
    const equals = flag.indexOf("=");
    if (equals <= 0) throw new UsageError(`--arg ${flag}: expected key=value`);
    const key = flag.slice(0, equals);
    const text = flag.slice(equals + 1);
    base[key] = readValue(key, text, properties[key]?.type);
  }
  return base;
}

function readValue(key: string, text: string, type: unknown): unknown {
  const types = Array.isArray(type) ? type : [type];
  if (types.includes("string")) return text;
  if (types.includes("boolean") && (text === "true" || text === "false")) return text === "true";
  if (types.some((entry) => entry === "number" || entry === "integer")) {
    const number = Number(text);
    if (text.trim() === "" || !Number.isFinite(number))
      throw new UsageError(`--arg ${key}=${text}: the tool expects a number`);
    return number;
  }
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
