import type { CallToolResult, JobSnapshot } from "@jobtasks/core";
import type { z } from "zod";

/**
 * Holding a successful result to the tool's declared outputSchema. Official MCP clients refuse a
 * successful result whose structuredContent does not match (and one that leaves it out), so a mismatch
 * from the upstream (a field it did not send, a null, a value redaction changed) is reported as an error
 * naming the fields, with the upstream's value kept as text, instead of a success the client throws on.
 */
export function checkOutput(snapshot: JobSnapshot, outputSchema: z.ZodType | undefined): JobSnapshot {
  const result = snapshot.result;
  if (!outputSchema || !result || result.isError) return snapshot;
  const checked = outputSchema.safeParse(result.structuredContent ?? {});
  if (checked.success) return snapshot;
  const fields = checked.error.issues.map((issue) => `${issue.path.join(".") || "(result)"}: ${issue.message}`).join("; ");
  const note = `The job finished, but its result does not match the tool's outputSchema (${fields}); the upstream's result follows as text.`;
  const reported: CallToolResult = { content: [{ type: "text", text: note }, ...result.content], isError: true };
  return { ...snapshot, result: reported };
}
