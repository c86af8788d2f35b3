import { z } from "@jobtasks/core";

/** The structured content of a finished pipeline's result: what an agent needs to act on a failure. */
export const pipelineResultSchema = z.object({
  pipelineId: z.number().int(),
  iid: z
    .number()
    .int()
    .nullable()
    .describe("the pipeline's number within its project, as GitLab's pages show it (#412)"),
  status: z.string().describe("success, failed, skipped, ..."),
  ref: z.string().nullable(),
  sha: z.string().nullable(),
  webUrl: z.string().nullable(),
  durationSeconds: z.number().nullable(),
  failedStages: z.array(z.string()).describe("stages with a job that failed the pipeline"),
  failedJobs: z.array(
    z.object({
      id: z.number().int(),
      name: z.string(),
      stage: z.string(),
      failureReason: z.string().nullable().describe("script_failure, runner_system_failure, ..."),
      allowFailure: z.boolean(),
      traceTail: z.string().optional().describe("the last lines of the job's trace, bounded and redacted"),
      traceNote: z.string().optional().describe("why the trace tail may be incomplete"),
    }),
  ),
  artifacts: z.array(
    z.object({
      jobId: z.number().int(),
      jobName: z.string(),
      fileType: z.string().describe("archive, junit, metadata, ..."),
      filename: z.string().nullable(),
      sizeInBytes: z.number().nullable(),
    }),
  ),
});

export type PipelineResult = z.infer<typeof pipelineResultSchema>;
