import { InvalidToolInputError, JobNotFoundError, UpstreamError, type JobTool, z } from "@jobtasks/core";
import type { WorkflowRun } from "./github-response-schemas.js";
import { runResultSchema } from "./run-result-schema.js";
import type { RunRef } from "./run-ref.js";
import { repositoryInputFields, resolveRepository, runIdSchema, type ToolDependencies } from "./tool-dependencies.js";
import { waitWithBackoff } from "./wait-with-backoff.js";

/**
 * A task for a run that already exists (a pull request's CI, a push), named by its id, or by the commit
 * that triggers it: then the tool waits, bounded, for that commit's run to appear.
 */
export function createWatchRunTool(dependencies: ToolDependencies, name: string): JobTool<RunRef> {
  const inputSchema = z
    .strictObject({
      ...repositoryInputFields(dependencies.repositories),
      runId: runIdSchema.optional(),
      attempt: z.number().int().positive().optional().describe("Run attempt to follow (default: the latest)"),
      headSha: z
        .string()
        .regex(/^[0-9a-f]{7,40}$/i, "a commit SHA")
        .optional()
        .describe("Instead of runId: follow the run triggered by this commit, waiting for it to appear"),
      workflow: z
        .string()
        .min(1)
        .optional()
        .describe("With headSha: the workflow file or name, when the commit triggers several"),
    })
    .refine((input) => (input.runId === undefined) !== (input.headSha === undefined), {
      message: "give either runId or headSha",
      path: ["runId"],
    });

  return {
    name,
    title: "Watch a GitHub Actions run",
    description:
      "Follow an existing GitHub Actions workflow run as a task (by run id, or by the commit that triggers it). " +
      "The result lists the conclusion, the jobs, the failed steps with the end of their logs, and the artifacts.",
    inputSchema,
    outputSchema: runResultSchema,
    async doStart(input, context) {
      const repository = resolveRepository(dependencies, input);
      const run =
        input.runId !== undefined
          ? await readRun(dependencies, repository, input.runId, context.signal)
          : await waitForCommitRun(dependencies, repository, input.headSha!, input.workflow, context.signal);
      const attempt = input.attempt ?? run.run_attempt;
      if (attempt > run.run_attempt) {
        throw new InvalidToolInputError("attempt", `run ${run.id} has ${run.run_attempt} attempt(s)`);
      }
      return { ref: { ...repository, runId: run.id, attempt } };
    },
  };
}

async function readRun(
  dependencies: ToolDependencies,
  repository: { owner: string; repo: string },
  runId: number | string,
  signal: AbortSignal,
): Promise<WorkflowRun> {
  try {
    return await dependencies.api.getRun(repository, runId, { signal, notFoundMeansGone: true });
  } catch (error) {
    if (error instanceof JobNotFoundError) {
      throw new InvalidToolInputError(
        "runId",
        `no run ${runId} in ${repository.owner}/${repository.repo}, or the token cannot see it`,
        { cause: error },
      );
    }
    throw error;
  }
}

async function waitForCommitRun(
  dependencies: ToolDependencies,
  repository: { owner: string; repo: string },
  headSha: string,
  workflow: string | undefined,
  signal: AbortSignal,
): Promise<WorkflowRun> {
  const config = dependencies.config;
  const found = await waitWithBackoff(
    async () => {
      const runs = await dependencies.api.listWorkflowRuns(repository, { headSha }, { signal });
      const matching = runs.filter((run) => !workflow || matchesWorkflow(run, workflow));
      if (matching.length === 0) return undefined;
      const workflows = new Set(matching.map((run) => run.path ?? run.name));
      if (workflows.size > 1) {
        const names = [...matching].map((run) => `'${run.name}' (${run.path ?? "?"})`);
        throw new InvalidToolInputError(
          "workflow",
          `commit ${headSha} triggered several workflows: ${[...new Set(names)].join(", ")}; name one`,
        );
      }
      // The same workflow may run twice for a commit (push and pull_request): follow the newest.
      return [...matching].sort((left, right) => Date.parse(right.created_at) - Date.parse(left.created_at))[0];
    },
    { timeoutMs: config.watchCommitTimeoutMs, initialMs: config.lookupPollMs, signal, now: dependencies.now },
  );
  if (!found) {
    throw new UpstreamError(
      `no workflow run${workflow ? ` of ${workflow}` : ""} for commit ${headSha} appeared in ${repository.owner}/${repository.repo} ` +
        `within ${Math.round(config.watchCommitTimeoutMs / 1000)} s`,
      { isRetryable: true },
    );
  }
  return found;
}

function matchesWorkflow(run: WorkflowRun, workflow: string): boolean {
  const wanted = workflow.toLowerCase();
  const path = (run.path ?? "").toLowerCase();
  // path may carry a ref suffix for reusable workflows ("...ci.yml@refs/heads/main").
  const file = path.split("@")[0]!.split("/").pop() ?? "";
  return file === wanted || path === wanted || (run.name ?? "").toLowerCase() === wanted;
}
