import { randomBytes } from "node:crypto";
import { OutcomeUnknownError, type JobTool } from "@jobtasks/core";
import { mayHaveActed } from "@jobtasks/core/adapter-utils";
import type { V1Job } from "@kubernetes/client-node";
import { buildJobManifest, toolInputSchema } from "./build-job-manifest.js";
import { labels } from "./job-annotations.js";
import type { JobRef } from "./job-ref.js";
import type { JobToolOptions } from "./job-template-options.js";
import type { ToolDependencies } from "./tool-dependencies.js";

/**
 * A tool made from one configured Job template: the caller's arguments, checked against the tool's input
 * schema, fill the template's marked places, and the Job is created with a generateName (suspended when
 * the tool asks for an approval first). The ref names the Job by namespace, name and uid.
 */
export function createTemplateJobTool(dependencies: ToolDependencies, tool: JobToolOptions): JobTool<JobRef> {
  const { api, watches, config } = dependencies;
  const name = `${config.toolPrefix}${tool.name}`;
  return {
    name,
    ...(tool.title ? { title: tool.title } : {}),
    description: `${tool.description}${/[.!?]$/.test(tool.description) ? "" : "."}${tool.approval ? " The Job is created suspended and runs once someone approves it." : ""} The result has the exit codes and the end of the pods' logs.`,
    inputSchema: toolInputSchema(tool.inputs),
    async doStart(input: Record<string, unknown>, context) {
      // Nothing is sent for a client that has left already; once sent, the create outlives it.
      context.signal.throwIfAborted();
      const startId = randomBytes(8).toString("hex");
      const manifest = buildJobManifest(tool, input, { toolName: name, instanceLabel: config.instanceLabel, startId });
      const created = await api.createJob(tool.namespace, manifest).catch(async (error: unknown) => {
        if (!(error instanceof OutcomeUnknownError)) throw error;
        return findLostJob(dependencies, tool.namespace, startId, error);
      });
      const ref = refOf(created);
      watches.of(ref.namespace, context.logger).offer(created);
      return { ref };
    },
  };
}

export function refOf(job: V1Job): JobRef {
  return { namespace: job.metadata!.namespace!, name: job.metadata!.name!, uid: job.metadata!.uid! };
}

/** A create whose answer was lost: its Job carries this start's label, so it is found (or known absent). */
async function findLostJob(
  dependencies: ToolDependencies,
  namespace: string,
  startId: string,
  error: OutcomeUnknownError,
): Promise<V1Job> {
  const lookup = AbortSignal.timeout(dependencies.config.requestTimeoutMs);
  const found = await dependencies.api
    .findJobsByLabel(namespace, `${labels.start}=${startId}`, lookup)
    .catch(() => undefined);
  if (found?.length === 1) return found[0]!;
  if (found?.length === 0) throw error;
  throw mayHaveActed(
    `${error.message}; it may have been created anyway: look for it with kubectl get jobs -n ${namespace} -l ${labels.start}=${startId}, and follow it with watch_job`,
    { httpStatus: error.httpStatus, cause: error },
  );
}
