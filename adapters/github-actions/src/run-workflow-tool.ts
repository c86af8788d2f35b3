import { InvalidToolInputError, type JobTool, z } from "@jobtasks/core";
import { dispatchWorkflow } from "./dispatch-workflow.js";
import { runResultSchema } from "./run-result-schema.js";
import type { RunRef } from "./run-ref.js";
import { toDispatchInputs, type ToolDependencies } from "./tool-dependencies.js";

/** The generic tool: any workflow on the allow-list ("owner/repo/file.yml" or "owner/repo/*"). */
export function createRunWorkflowTool(dependencies: ToolDependencies, name: string): JobTool<RunRef> {
  const allowed = dependencies.config.allowedWorkflows.map((entry) => entry.toLowerCase());
  const inputSchema = z.strictObject({
    owner: z.string().min(1).describe("Repository owner"),
    repo: z.string().min(1).describe("Repository name"),
    workflow: z.string().min(1).describe("Workflow file name, e.g. ci.yml"),
    ref: z.string().min(1).describe("Git branch, tag or SHA to run on"),
    inputs: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
      .optional()
      .describe("workflow_dispatch inputs"),
  });
  return {
    name,
    title: "Run a GitHub Actions workflow",
    description:
      `Dispatch a GitHub Actions workflow and follow the run as a task. Allowed: ${dependencies.config.allowedWorkflows.join(", ")}. ` +
      "The result lists the conclusion, the jobs, the failed steps with the end of their logs, and the artifacts.",
    inputSchema,
    outputSchema: runResultSchema,
    async doStart(input, context) {
      const workflowFile = input.workflow.replace(/^\.github\/workflows\//, "");
      const key = `${input.owner}/${input.repo}`.toLowerCase();
      if (!allowed.includes(`${key}/${workflowFile.toLowerCase()}`) && !allowed.includes(`${key}/*`)) {
        throw new InvalidToolInputError("workflow", `${key}/${workflowFile} is not on this server's allow-list`);
      }
      const correlationInput = dependencies.config.dispatch.correlationInput;
      return dispatchWorkflow(
        dependencies.api,
        {
          owner: input.owner,
          repo: input.repo,
          workflow: workflowFile,
          ref: input.ref,
          inputs: toDispatchInputs(input.inputs ?? {}, correlationInput ? 1 : 0),
          correlationInput,
        },
        dependencies.config.dispatch,
        context,
        dependencies.now,
      );
    },
  };
}
