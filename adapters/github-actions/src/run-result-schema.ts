import { z } from "@jobtasks/core";

/** The structured content of a finished run's result: what an agent needs to act on a failure. */
export const runResultSchema = z.object({
  repository: z.string().describe('"owner/repo"'),
  runId: z.union([z.number(), z.string()]),
  attempt: z.number().int(),
  workflow: z.string(),
  conclusion: z.string().describe("success, failure, timed_out, ..."),
  htmlUrl: z.string(),
  headBranch: z.string().nullable(),
  headSha: z.string(),
  event: z.string(),
  durationSeconds: z.number().nullable(),
  jobs: z.array(
    z.object({
      name: z.string(),
      conclusion: z.string().nullable(),
      htmlUrl: z.string().nullable(),
    }),
  ),
  failedSteps: z.array(
    z.object({
      job: z.string(),
      step: z.string().nullable().describe("null when the job failed outside any step"),
      conclusion: z.string().nullable(),
      logTail: z.string().describe("the last lines of the step's log, bounded"),
      logTruncated: z.boolean(),
    }),
  ),
  artifacts: z.array(
    z.object({
      name: z.string(),
      sizeInBytes: z.number(),
      url: z.string().describe("archive download URL (needs a token)"),
      expiresAt: z.string().nullable(),
    }),
  ),
});

export type RunResult = z.output<typeof runResultSchema>;
export type FailedStep = RunResult["failedSteps"][number];
