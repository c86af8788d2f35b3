import { z } from "@jobtasks/core";
import type { JobTool } from "@jobtasks/core";
import type { DemoApi } from "./demo-api.js";
import { mapDemoStatus } from "./map-demo-status.js";
import { demoPipelineOutputSchema } from "./demo-pipeline-result.js";
import type { DemoJobRef } from "./demo-job-ref.js";

/** Strict, so that a misspelt argument is refused instead of silently running the default pipeline. */
export const demoPipelineInputSchema = z.strictObject({
  steps: z
    .number()
    .int()
    .min(1)
    .max(50)
    .default(3)
    .describe("Number of pipeline steps (checkout, install, test, build, package, deploy, ...). 1 to 50, default 3."),
  stepMs: z
    .number()
    .int()
    .min(0)
    .max(600_000)
    .default(1000)
    .describe("How long each step runs, in milliseconds. 0 to 600000, default 1000."),
  approval: z
    .boolean()
    .default(false)
    .describe("Pause after the first step until someone approves the deploy (the task asks for input). Default false."),
  fail: z
    .boolean()
    .default(false)
    .describe("Make the last step fail, to see how a failed pipeline is reported (with its log). Default false."),
});

export type DemoPipelineInput = z.output<typeof demoPipelineInputSchema>;

export function demoPipelineTool(toolName: string, api: DemoApi): JobTool<DemoJobRef, DemoPipelineInput> {
  return {
    name: toolName,
    title: "Demo CI pipeline",
    description:
      "Run a pipeline on the demo CI system (a stand-in for a real CI service; no account needed). The job runs " +
      "`steps` steps of `stepMs` each and ends with a summary; with `approval` it pauses after the first step and " +
      "asks whether to approve the deploy; with `fail` its last step fails and the result (isError) carries the log " +
      "lines that explain why. Can be cancelled.",
    inputSchema: demoPipelineInputSchema,
    outputSchema: demoPipelineOutputSchema,
    async doStart(input, context) {
      const job = await api.createJob(
        { steps: input.steps, stepMs: input.stepMs, approval: input.approval, fail: input.fail },
        context.signal,
      );
      context.logger.info({ jobId: job.id, steps: input.steps }, "demo pipeline started");
      return { ref: { jobId: job.id }, snapshot: mapDemoStatus(job) };
    },
  };
}
