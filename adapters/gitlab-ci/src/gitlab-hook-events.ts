import { z, type DeliveryEventsV1, type JobEventsV1, type JsonValue } from "@jobtasks/core";
import { parseDeliveryJson, sameSecret } from "@jobtasks/core/adapter-utils";
import type { PipelineRef } from "./pipeline-ref.js";

/**
 * GitLab's webhook deliveries (a project or group hook) for this adapter's pipelines: Pipeline, Job and
 * Deployment Hooks, authenticated by the hook's secret token in X-Gitlab-Token. An event names a pipeline,
 * never the run of it a task follows (GitLab retries a pipeline in place; `jobsUpTo` is the task's), so
 * each says "changed, read again" and `jobIdentity` leaves the run out: the server then reaches every task
 * of the pipeline, and each reads its own run.
 */
export function gitlabHookEvents(webhookSecret: string, projects: readonly string[]): JobEventsV1<PipelineRef> {
  const pipelinesOfJobs = new JobPipelines();
  return {
    async doVerifyDelivery({ headers }) {
      const token = headers["x-gitlab-token"];
      if (token === undefined || token === "") return { verified: false, reason: "no X-Gitlab-Token header" };
      if (!sameSecret(token, webhookSecret))
        return { verified: false, reason: "X-Gitlab-Token does not match the webhook secret" };
      // Idempotency-Key (GitLab 17.4 on) stays the same when GitLab retries a delivery; the event's UUID otherwise.
      const deliveryId = headers["idempotency-key"] || headers["x-gitlab-event-uuid"];
      return deliveryId ? { verified: true, deliveryId } : { verified: true };
    },

    async doReadDelivery({ headers, body }) {
      const payload = hookSchema.parse(parseDeliveryJson(body));
      const event = headers["x-gitlab-event"] ?? payload.object_kind ?? "unknown";
      const named = pipelineOf(payload, pipelinesOfJobs);
      const status = payload.object_attributes?.status ?? payload.build_status ?? payload.status;
      return {
        event,
        ...(status !== undefined ? { action: status } : {}),
        jobs: named ? refsOf(named, projects) : [],
      };
    },

    // GitLab paths are case-insensitive; the run a task follows (jobsUpTo, retriedAfterJobId) is no event's.
    jobIdentity: (ref): JsonValue => ({ project: ref.project.toLowerCase(), pipelineId: ref.pipelineId }),
  };
}

/** Only what routing reads; GitLab sends much more, and adds fields over time. */
const projectSchema = z.looseObject({ id: z.number().int().positive(), path_with_namespace: z.string().optional() });
const hookSchema = z.looseObject({
  object_kind: z.string().optional(),
  project: projectSchema.optional(),
  // Pipeline Hook
  object_attributes: z.looseObject({ id: z.number().int().positive(), status: z.string().optional() }).optional(),
  builds: z.array(z.looseObject({ id: z.number().int().positive() })).optional(),
  // Job Hook
  build_id: z.number().int().positive().optional(),
  build_status: z.string().optional(),
  pipeline_id: z.number().int().positive().optional(),
  project_id: z.number().int().positive().optional(),
  // Deployment Hook
  deployable_id: z.number().int().positive().nullable().optional(),
  status: z.string().optional(),
});

type Hook = z.infer<typeof hookSchema>;

interface NamedPipeline {
  projectId: number;
  projectPath: string | undefined;
  pipelineId: number;
}

function pipelineOf(hook: Hook, pipelinesOfJobs: JobPipelines): NamedPipeline | undefined {
  const projectId = hook.project?.id ?? hook.project_id;
  if (projectId === undefined) return undefined;
  const projectPath = hook.project?.path_with_namespace;
  const named = (pipelineId: number): NamedPipeline => ({ projectId, projectPath, pipelineId });
  switch (hook.object_kind) {
    case "pipeline": {
      if (!hook.object_attributes) return undefined;
      const pipeline = named(hook.object_attributes.id);
      for (const job of hook.builds ?? []) pipelinesOfJobs.remember(job.id, pipeline);
      return pipeline;
    }
    case "build": {
      if (hook.pipeline_id === undefined) return undefined;
      const pipeline = named(hook.pipeline_id);
      if (hook.build_id !== undefined) pipelinesOfJobs.remember(hook.build_id, pipeline);
      return pipeline;
    }
    // A deployment names its job (deployable_id), not the job's pipeline: known when a Pipeline or Job Hook
    // listed that job before; otherwise the deploy job's own Job Hook carries the change.
    case "deployment": {
      if (hook.deployable_id === undefined || hook.deployable_id === null) return undefined;
      const pipeline = pipelinesOfJobs.pipelineOf(hook.deployable_id);
      return pipeline && pipeline.projectId === projectId ? pipeline : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * The refs tasks of this pipeline hold: the project as the options spell it (a numeric id or a path, as the
 * tools take it), once for each spelling that names the hook's project. Another project's hook names none.
 */
function refsOf(named: NamedPipeline, projects: readonly string[]): DeliveryEventsV1<PipelineRef>["jobs"] {
  const path = named.projectPath?.toLowerCase();
  return projects
    .filter((project) => project === String(named.projectId) || project.toLowerCase() === path)
    .map((project) => ({ ref: { project, pipelineId: named.pipelineId } }));
}

/** The pipelines of jobs seen in recent hooks, so that a Deployment Hook finds its job's pipeline. Bounded. */
class JobPipelines {
  static readonly #max = 4096;
  readonly #pipelines = new Map<number, NamedPipeline>();

  remember(jobId: number, pipeline: NamedPipeline): void {
    this.#pipelines.delete(jobId);
    this.#pipelines.set(jobId, pipeline);
    // A Map iterates in insertion order: the first key is the oldest.
    if (this.#pipelines.size > JobPipelines.#max) this.#pipelines.delete(this.#pipelines.keys().next().value!);
  }

  pipelineOf(jobId: number): NamedPipeline | undefined {
    return this.#pipelines.get(jobId);
  }
}
