import type { z } from "@jobtasks/core";
import { errorCodes, TaskProtocolError } from "./protocol-error.js";

/**
 * Validate tool arguments against the tool's schema. A failure is JSON-RPC -32602 whose message names the
 * first offending field, with every issue in `data` for clients that show them all.
 */
export function validateToolInput(toolName: string, schema: z.ZodType, input: unknown): unknown {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => ({ field: fieldName(issue.path), message: issue.message }));
  const first = issues[0] ?? { field: "arguments", message: "invalid" };
  return invalidArguments(toolName, first.field, first.message, issues);
}

export function invalidArguments(
  toolName: string,
  field: string,
  message: string,
  issues: Array<{ field: string; message: string }> = [{ field, message }],
): never {
  throw new TaskProtocolError(
    errorCodes.invalidParams,
    `Invalid arguments for tool ${toolName}: ${field}: ${message}`,
    {
      field,
      issues,
    },
  );
}

function fieldName(path: ReadonlyArray<PropertyKey>): string {
  if (path.length === 0) return "arguments";
  return path
    .map((segment, index) =>
      typeof segment === "number" ? `[${segment}]` : `${index === 0 ? "" : "."}${String(segment)}`,
    )
    .join("");
}
