import { UpstreamError, configErrorFromIssues, type JobAdapterV1, type JobTool } from "@jobtasks/core";
import { respondToApproval } from "./approval.js";
import { annotations, setAnnotation } from "./job-annotations.js";
import { jobRefSchema, type JobRef } from "./job-ref.js";
import { JobWatches } from "./job-watches.js";
import { createKubernetesApi, type KubernetesApi } from "./kubernetes-api.js";
import type { Environment } from "./kubernetes-client.js";
import { kubernetesOptionsSchema, type KubernetesConfig } from "./kubernetes-options.js";
import { labelValueOf } from "./build-job-manifest.js";
import { JobReader } from "./read-job-snapshot.js";
import { createTemplateJobTool } from "./template-job-tool.js";
import { createWatchJobTool } from "./watch-job-tool.js";

/** Options of `kubernetes(options)`: the config-file options (kubernetes-options.ts documents each one). */
export type KubernetesOptions = KubernetesConfig;

/** What the adapter offers beyond the contract: its watches' cost, for benchmarks and tests. */
export type KubernetesAdapter = JobAdapterV1<JobRef> & {
  watchStatistics(): ReturnType<JobWatches["statistics"]>;
};

/** How long the credentials read from files (a rotating service-account token) are taken as current. */
const secretsFreshForMs = 30_000;

/**
 * Build a Kubernetes Jobs adapter. Throws AdapterConfigError naming the option at fault. Nothing talks to
 * the cluster (nor loads its client) until a tool or a status read needs it.
 */
export function kubernetes(options: KubernetesOptions, environment: Environment = process.env): KubernetesAdapter {
  const parsed = kubernetesOptionsSchema.safeParse(options, { jitless: true });
  if (!parsed.success) throw configErrorFromIssues(parsed.error);
  const config = parsed.data;
  const api: KubernetesApi = createKubernetesApi(config.connection, environment, config.requestTimeoutMs);
  const watches = new JobWatches(api, config.watch);
  const dependencies = { api, watches, config };
  const approvalQuestions = new Map(
    config.tools.flatMap((tool) =>
      tool.approval ? [[labelValueOf(`${config.toolPrefix}${tool.name}`), tool.approval.question] as const] : [],
    ),
  );
  const reader = new JobReader(api, watches, {
    podReadIntervalMs: config.podReadIntervalMs,
    logs: config.logs,
    // The first list's own deadline: a first read waits for it rather than asking the API a second time.
    firstSyncWaitMs: config.requestTimeoutMs,
    approvalQuestions,
  });
  const tools: JobTool<JobRef>[] = [
    ...config.tools.map((tool) => createTemplateJobTool(dependencies, tool)),
    ...(config.watchJob ? [createWatchJobTool(dependencies, `${config.toolPrefix}watch_job`)] : []),
  ].map((tool) =>
    config.synchronousWaitMs === undefined ? tool : { ...tool, synchronousWaitMs: config.synchronousWaitMs },
  );
  let secrets: { at: number; values: readonly string[] } = { at: 0, values: [] };
  /** A task of a namespace the config no longer allows (it was edited since) is refused, never read or acted on. */
  const allowed = (ref: JobRef): JobRef => {
    if (config.allowedNamespaces.includes(ref.namespace)) return ref;
    throw new UpstreamError(`namespace ${ref.namespace} is no longer in allowedNamespaces`, { isRetryable: false });
  };

  return {
    specificationVersion: "v1",
    kind: "kubernetes",
    tools,
    pollIntervalMs: config.pollIntervalMs,
    // A Job stays until someone (or its ttlSecondsAfterFinished) deletes it.
    retentionMs: null,
    // The core redacts these from everything this adapter hands back (withSecretRedaction).
    secrets: () => {
      if (Date.now() - secrets.at > secretsFreshForMs || secrets.values.length === 0)
        secrets = { at: Date.now(), values: api.secrets() };
      return secrets.values;
    },
    // The server checks every ref against it before the methods below see one.
    refSchema: jobRefSchema,

    doGetStatus(ref, context) {
      return reader.read(allowed(ref), context);
    },

    doRespond(ref, responses, context) {
      return respondToApproval(api, allowed(ref), responses, context.signal, (uid) => reader.noteRejected(uid));
    },

    async doCancel(ref, context) {
      allowed(ref);
      reader.noteCancelRequested(ref.uid);
      // Marked first, so that every replica reads "cancelled" from the Job's last state once it is gone.
      const held = watches.of(ref.namespace, context.logger).job(ref.name);
      const mark = setAnnotation(held, annotations.cancelRequested, new Date().toISOString());
      await api.patchJob(ref, [mark], context.signal).catch((error: unknown) => {
        if (context.signal.aborted) throw error;
        context.logger.warn(
          { error: (error as Error).message },
          "could not mark the Job as cancel requested; deleting it anyway",
        );
      });
      await api.deleteJob(ref, context.signal);
    },

    // The watch sees a change before any read: the server drops the Job's cached snapshot and wakes its waits
    // and listeners at once, and the next read (from the watch, and the pods where needed) shows it.
    watchJobChanges(report) {
      watches.onChange((namespace, job) => {
        const { name, uid } = job.metadata ?? {};
        if (name && uid) report({ ref: { namespace, name, uid } });
      });
    },

    watchStatistics: () => watches.statistics(),

    async close() {
      await watches.stop();
    },
  };
}
