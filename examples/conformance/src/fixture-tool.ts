import type { z } from "@jobtasks/core";
import type { InputRequest, JobSnapshot, StartInputRequest, StartInputResponse } from "@jobtasks/core";
import type { FixtureJob } from "./fixture-job-table.js";

/** What one fixture tool does, as a job: its declaration plus its state at any moment. */
export interface FixtureTool<Input = any> {
  name: string;
  description: string;
  inputSchema: z.ZodType<Input>;
  /** Lets clients without the tasks extension call it (see JobTool.synchronousWaitMs). */
  synchronousWaitMs?: number;
  inputBeforeStart?(
    input: Input,
    answers: Readonly<Record<string, StartInputResponse>>,
  ): Record<string, StartInputRequest> | undefined;
  /** The job's state at `now`, cancellation aside (the adapter answers that). */
  observe(job: FixtureJob & { input: Input }, now: number): JobSnapshot;
}

export function textResult(text: string, isError = false): NonNullable<JobSnapshot["result"]> {
  return isError ? { content: [{ type: "text", text }], isError: true } : { content: [{ type: "text", text }] };
}

/** A one-field form elicitation. */
export function askFor(message: string, field: string, schema: Record<string, unknown>): InputRequest {
  return {
    method: "elicitation/create",
    params: {
      mode: "form",
      message,
      requestedSchema: { type: "object", properties: { [field]: schema }, required: [field] },
    },
  };
}

/** One field of an accepted form answer; undefined for a declined or cancelled one, or another kind. */
export function acceptedField(answer: StartInputResponse | undefined, field: string): unknown {
  return answer && "action" in answer && answer.action === "accept" ? answer.content?.[field] : undefined;
}

/** The text of a sampling answer; undefined for another kind. */
export function sampledText(answer: StartInputResponse | undefined): string | undefined {
  if (!answer || !("model" in answer)) return undefined;
  return answer.content.type === "text" && typeof answer.content["text"] === "string"
    ? answer.content["text"]
    : undefined;
}

/** The roots of a roots answer, as "uri (name)"; undefined for another kind. */
export function rootsListed(answer: StartInputResponse | undefined): string | undefined {
  if (!answer || !("roots" in answer)) return undefined;
  return answer.roots.map((root) => (root.name ? `${root.uri} (${root.name})` : root.uri)).join(", ");
}
