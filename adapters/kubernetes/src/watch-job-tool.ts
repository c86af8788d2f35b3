import { InvalidToolInputError, JobNotFoundError, type JobTool, z } from "@jobtasks/core";
import type { JobRef } from "./job-ref.js";
import { refOf } from "./template-job-tool.js";
import type { ToolDependencies } from "./tool-dependencies.js";

/** `watch_job`: follow a Job started elsewhere (by kubectl, a CronJob, a pipeline) in an allowed namespace. */
export function createWatchJobTool(dependencies: ToolDependencies, name: string): JobTool<JobRef> {
  const { api, watches, config } = dependencies;
  const [first, ...rest] = config.allowedNamespaces;
  return {
    name,
    title: "Watch a Kubernetes Job",
    description:
      "Follows an existing Kubernetes Job (one started by kubectl, a CronJob's run, a pipeline) to its end, in one of the namespaces this server allows. The result has the exit codes and the end of the pods' logs.",
    inputSchema: z.strictObject({
      namespace: z.enum([first!, ...rest]).describe("The Job's namespace: one of the namespaces this server allows"),
      name: z
        .string()
        .max(253)
        .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, "a Job name (lower-case letters, digits, - and .)")
        .describe("The Job's name, as kubectl get jobs shows it"),
    }),
    async doStart(input: { namespace: string; name: string }, context) {
      const job = await api.readJob(input.namespace, input.name, context.signal).catch((error: unknown) => {
        if (error instanceof JobNotFoundError)
          throw new InvalidToolInputError("name", `no Job of this name in namespace ${input.namespace}`, {
            cause: error,
          });
        throw error;
      });
      watches.of(input.namespace, context.logger).offer(job);
      return { ref: refOf(job) };
    },
  };
}
