import { z } from "@jobtasks/core";
import type { JobTool } from "@jobtasks/core";
import type { MemoryJobTable } from "./memory-jobs-api.js";
import type { MemoryJobRef } from "./memory-job-ref.js";

const inputSchema = z.strictObject({
  askFirst: z.boolean().default(false).describe("Ask for approval before the job runs."),
});

/** The one tool: start a job in the table. */
export function runJobTool(
  name: string,
  table: Pick<MemoryJobTable, "create" | "pollsToFinish">,
): JobTool<MemoryJobRef, z.output<typeof inputSchema>> {
  return {
    name,
    description: `Runs a job that finishes after ${table.pollsToFinish} status reads; with askFirst, it waits for an approval first.`,
    inputSchema,
    doStart: async (input, context) => {
      context.signal.throwIfAborted();
      return { ref: { jobId: table.create(input.askFirst) } };
    },
  };
}
