import { z } from "@jobtasks/core";

/** The adapter's options, documented once: this schema is the option reference. */
export const memoryJobsOptionsSchema = z.strictObject({
  /** Reads of a running job before it succeeds. Default 3. */
  pollsToFinish: z
    .number()
    .int()
    .positive()
    .default(3)
    .describe("Reads of a running job before it succeeds. Default 3."),
  /** The job table's API key, when it wants one. A secret: the server keeps it out of every answer and log. */
  apiKey: z.string().min(8).optional().describe("The job table's API key, when it wants one (a secret)."),
  /** Name of the MCP tool. Default "run_job". */
  toolName: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default("run_job")
    .describe('Name of the MCP tool. Default "run_job".'),
});

/** What people write (defaults optional). */
export type MemoryJobsOptions = z.input<typeof memoryJobsOptionsSchema>;
/** What the factory works on (defaults applied). */
export type MemoryJobsConfig = z.output<typeof memoryJobsOptionsSchema>;
