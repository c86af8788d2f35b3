import { InvalidToolInputError, JobNotFoundError, type UpstreamError, type JobTool, z } from "@jobtasks/core";
import { mayHaveActed } from "@jobtasks/core/adapter-utils";
import { runResultSchema } from "./run-result-schema.js";
import type { RunRef } from "./run-ref.js";
import { startAnswerAllowanceMs, startOutlivingClient } from "./start-outliving-client.js";
import { repositoryInputFields, resolveRepository, runIdSchema, type ToolDependencies } from "./tool-dependencies.js";
import { describeWaitEnd, isUndecidedPost, waitAfterAcceptance } from "./wait-after-acceptance.js";

/**
 * Re-run a finished run (all jobs or the failed ones) as a new task bound to the new attempt, so the task
 * of the earlier attempt keeps its answer.
 */
export function createRerunRunTool(dependencies: ToolDependencies, name: string): JobTool<RunRef> {
  const inputSchema = z.strictObject({
    ...repositoryInputFields(dependencies.repositories),
    runId: runIdSchema,
    failedJobsOnly: z.boolean().optional().describe("Re-run only the failed jobs and their dependents (default false)"),
    debugLogging: z.boolean().optional().describe("Enable step debug logging (default false)"),
  });

  return {
    name,
    title: "Re-run a GitHub Actions run",
    description:
      "Re-run a finished GitHub Actions workflow run (all jobs, or only the failed ones) and follow the new attempt as a task.",
    inputSchema,
    outputSchema: runResultSchema,
    async doStart(input, context) {
      const repository = resolveRepository(dependencies, input);
      let run;
      try {
        // Nothing has started yet: this read may end with the client's signal.
        run = await dependencies.api.getRun(repository, input.runId, {
          signal: context.signal,
          notFoundMeansGone: true,
        });
      } catch (error) {
        if (error instanceof JobNotFoundError)
          throw new InvalidToolInputError("runId", `no run ${input.runId} in ${repository.owner}/${repository.repo}`, {
            cause: error,
          });
        throw error;
      }
      if (run.status !== "completed") {
        throw new InvalidToolInputError(
          "runId",
          `run ${run.id} is ${run.status ?? "unknown"}; only a finished run can be re-run`,
        );
      }
      const settings = { failedJobsOnly: input.failedJobsOnly ?? false, debugLogging: input.debugLogging ?? false };
      const ref: RunRef = { ...repository, runId: run.id, attempt: run.run_attempt + 1 };
      const timeoutMs = dependencies.config.watchCommitTimeoutMs;
      // A client that leaves once the re-run is sent does not cut it short: the new attempt is cancelled.
      return startOutlivingClient(
        {
          api: dependencies.api,
          context,
          deadlineMs: timeoutMs + startAnswerAllowanceMs,
          started: `the re-run of run ${run.id}`,
        },
        async (signal, progress) => {
          // The re-run is the next attempt; wait until it can be read, so the task resolves. A 5xx or a broken
          // connection may have re-run it anyway: the POST is never sent twice, the attempt is looked for instead.
          let undecided: UpstreamError | undefined;
          try {
            await dependencies.api.rerunRun(repository, run.id, settings, { signal });
            progress.created(ref);
          } catch (error) {
            if (!isUndecidedPost(error)) throw error;
            progress.mayHaveStarted();
            undecided = error;
          }
          const outcome = await waitAfterAcceptance(
            () => dependencies.api.getRunAttempt(ref, { signal, notFoundMeansGone: true }),
            {
              timeoutMs,
              initialMs: dependencies.config.lookupPollMs,
              signal,
              now: dependencies.now,
            },
          );
          if (outcome.found === undefined) {
            const watch = `watch_run (runId ${run.id}, attempt ${ref.attempt})`;
            const answer = undecided?.httpStatus === undefined ? "no answer" : `HTTP ${undecided.httpStatus}`;
            throw mayHaveActed(
              undecided
                ? `GitHub gave ${answer} to the re-run of run ${run.id}: it may have started anyway, and attempt ${ref.attempt} was not found ` +
                    `${describeWaitEnd(outcome, timeoutMs)}; look with ${watch} before re-running it`
                : `GitHub accepted the re-run of run ${run.id}, but attempt ${ref.attempt} could not be read ${describeWaitEnd(outcome, timeoutMs)}; ` +
                    `follow it with ${watch} and do not re-run it again`,
              { cause: outcome.lastError ?? undecided },
            );
          }
          return { ref };
        },
      );
    },
  };
}
