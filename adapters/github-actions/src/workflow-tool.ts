import { z } from "@jobtasks/core";
import type { JobTool } from "@jobtasks/core";
import { dispatchWorkflow } from "./dispatch-workflow.js";
import type { WorkflowInputConfig, WorkflowToolConfig } from "./github-actions-options.js";
import { runResultSchema } from "./run-result-schema.js";
import type { RunRef } from "./run-ref.js";
import { toDispatchInputs, type ToolDependencies } from "./tool-dependencies.js";

/** A tool for one configured workflow: the agent picks the ref (if allowed) and the declared inputs. */
export function createWorkflowTool(dependencies: ToolDependencies, workflow: WorkflowToolConfig): JobTool<RunRef> {
  const [owner, repo] = workflow.repository.split("/") as [string, string];
  const correlationInput = workflow.correlationInput ?? dependencies.config.dispatch.correlationInput;
  const inputsSchema = workflow.inputs
    ? z.strictObject(
        Object.fromEntries(Object.entries(workflow.inputs).map(([name, input]) => [name, declaredInputSchema(input)])),
      )
    : z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));
  const fields: Record<string, z.ZodType> = {
    inputs: (workflow.inputs && Object.values(workflow.inputs).some((input) => input.required)
      ? inputsSchema
      : inputsSchema.optional()
    ).describe("workflow_dispatch inputs"),
  };
  if (workflow.allowRefOverride)
    fields.ref = z.string().min(1).optional().describe(`Git branch, tag or SHA to run on (default ${workflow.ref})`);
  const inputSchema = z.strictObject(fields) as z.ZodType<{
    ref?: string;
    inputs?: Record<string, string | number | boolean | undefined>;
  }>;

  return {
    name: workflow.tool,
    title: `Run ${workflow.workflow} in ${workflow.repository}`,
    description:
      workflow.description ??
      `Run the GitHub Actions workflow ${workflow.workflow} of ${workflow.repository} and follow the run as a task; ` +
        "the result lists the conclusion, the jobs, the failed steps with the end of their logs, and the artifacts.",
    inputSchema,
    outputSchema: runResultSchema,
    async doStart(input, context) {
      const given = { ...defaultsOf(workflow.inputs), ...input.inputs };
      return dispatchWorkflow(
        dependencies.api,
        {
          owner,
          repo,
          workflow: workflow.workflow,
          ref: input.ref ?? workflow.ref,
          inputs: toDispatchInputs(given, correlationInput ? 1 : 0),
          correlationInput,
        },
        dependencies.config.dispatch,
        context,
        dependencies.now,
      );
    },
  };
}

function declaredInputSchema(input: WorkflowInputConfig): z.ZodType {
  const base = input.options
    ? z.enum(input.options as [string, ...string[]])
    : z.union([z.string(), z.number(), z.boolean()]);
  const described = input.description ? base.describe(input.description) : base;
  return input.required ? described : described.optional();
}

function defaultsOf(inputs: Record<string, WorkflowInputConfig> | undefined): Record<string, string> {
  if (!inputs) return {};
  return Object.fromEntries(
    Object.entries(inputs).flatMap(([name, input]) => (input.default === undefined ? [] : [[name, input.default]])),
  );
}
