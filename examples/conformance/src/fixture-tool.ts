import type { z } from "zod";
import type { ElicitationResponse, InputRequest, JobSnapshot } from "@jobtasks/core";
import type { FixtureJob } from "./fixture-job-table.js";

/** What one fixture tool does, as a job: its declaration plus its state at any moment. */
export interface FixtureTool<Input = any> {
  name: string;
  description: string;
  inputSchema: z.ZodType<Input>;
  /** Lets clients without the tasks extension call it (see JobTool.synchronousWaitMs). */
  synchronousWaitMs?: number;
  inputBeforeStart?(input: Input, answers: Readonly<Record<string, ElicitationResponse>>): Record<string, InputRequest> | undefined;
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
    params: { mode: "form", message, requestedSchema: { type: "object", properties: { [field]: schema }, required: [field] } },
  };
}
