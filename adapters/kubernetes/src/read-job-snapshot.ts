import { JobNotFoundError, type AdapterContext, type JobSnapshot } from "@jobtasks/core";
import type { V1Job } from "@kubernetes/client-node";
import { approvalKeyOf, approvalRequest } from "./approval.js";
import { buildJobResult } from "./build-job-result.js";
import { annotations, labels } from "./job-annotations.js";
import type { JobRef } from "./job-ref.js";
import type { JobWatches } from "./job-watches.js";
import type { KubernetesApi } from "./kubernetes-api.js";
import { mapKubernetesStatus, type JobPhase } from "./map-kubernetes-status.js";
import { containerEnds, pendingReason, podsToTail } from "./pod-details.js";
import { tailPodLogs, type LogSettings } from "./tail-pod-logs.js";
import { BoundedMap } from "./bounded-map.js";

/**
 * One status read of a Job, answered from its namespace's watch when that is in sync (no request at all),
 * else by reading the Job directly. Pods are read only when the Job alone cannot say enough: why a Job is
 * pending (at most every podReadIntervalMs per Job), and how a finished one ended (once: the result is kept).
 */

export interface ReaderSettings {
  podReadIntervalMs: number;
  logs: LogSettings;
  /** How long a first read waits for its namespace's first list before reading the Job directly. */
  firstSyncWaitMs: number;
  /** The approval question per tool label; a Job of another tool gets the generic one. */
  approvalQuestions: ReadonlyMap<string, string>;
}

const genericQuestion = "Run this Job, which was created suspended until someone approves it?";

export class JobReader {
  readonly #api: KubernetesApi;
  readonly #watches: JobWatches;
  readonly #settings: ReaderSettings;
  /** Finished Jobs' snapshots, by uid: a Job the cluster deletes later (its TTL) still answers with its end. */
  readonly #finished = new BoundedMap<string, JobSnapshot>(5000);
  readonly #pendingReasons = new BoundedMap<string, { at: number; version: string; reason: string | undefined }>(5000);
  /** Jobs a task asked to cancel or whose start was rejected here, by uid (the Job's own marks may be lost). */
  readonly #cancelRequested = new BoundedMap<string, true>(5000);
  readonly #rejected = new BoundedMap<string, true>(5000);

  constructor(api: KubernetesApi, watches: JobWatches, settings: ReaderSettings) {
    this.#api = api;
    this.#watches = watches;
    this.#settings = settings;
  }

  noteCancelRequested(uid: string): void {
    this.#cancelRequested.set(uid, true);
  }

  noteRejected(uid: string): void {
    this.#rejected.set(uid, true);
  }

  /** The Job as it is now: from the watch when in sync, else read directly (and offered to the watch). */
  async currentJob(ref: JobRef, context: AdapterContext): Promise<{ job?: V1Job; lastSeen?: V1Job }> {
    const watch = this.#watches.of(ref.namespace, context.logger);
    await watch.whenSynced(this.#settings.firstSyncWaitMs, context.signal);
    if (watch.synced) {
      const held = watch.job(ref.name);
      if (held?.metadata?.uid === ref.uid) return { job: held };
      const tombstone = watch.tombstone(ref.uid);
      if (tombstone) return tombstone.job ? { lastSeen: tombstone.job } : {};
    }
    // Not in sync, or a Job the watch has not seen (deleted before it started): the API decides.
    try {
      const job = await this.#api.readJob(ref.namespace, ref.name, context.signal);
      if (job.metadata?.uid === ref.uid) {
        watch.offer(job);
        return { job };
      }
    } catch (error) {
      if (!(error instanceof JobNotFoundError)) throw error;
    }
    watch.markGone(ref.uid);
    return {};
  }

  async read(ref: JobRef, context: AdapterContext): Promise<JobSnapshot> {
    context.signal.throwIfAborted();
    const finished = this.#finished.get(ref.uid);
    if (finished) return finished;
    const { job, lastSeen } = await this.currentJob(ref, context);
    if (!job) return this.#answerGone(ref, lastSeen);
    const phase = mapKubernetesStatus(job);
    return this.#answer(ref, job, phase, context);
  }

  async #answer(ref: JobRef, job: V1Job, phase: JobPhase, context: AdapterContext): Promise<JobSnapshot> {
    const updatedAt = lastChangeOf(job);
    const common = { rawStatus: phase.rawStatus, ...(updatedAt ? { updatedAt } : {}) };
    switch (phase.phase) {
      case "approval": {
        const tool = job.metadata?.labels?.[labels.tool] ?? "";
        const question = this.#settings.approvalQuestions.get(tool) ?? genericQuestion;
        return {
          status: "input_required",
          ...common,
          message: "suspended: waiting for an approval to run",
          inputRequests: approvalRequest(job, question),
          approvalKeys: [approvalKeyOf(ref.uid)],
        };
      }
      case "cancelled":
        return { status: "cancelled", ...common, message: phase.message };
      case "working": {
        if (this.#cancelRequested.has(ref.uid) && phase.rawStatus !== "CancelRequested")
          return {
            status: "working",
            ...common,
            rawStatus: "CancelRequested",
            message: "cancel requested: deleting the Job and its pods",
          };
        const reason = phase.needsPods ? await this.#pendingReason(ref, job, context) : undefined;
        const progress = progressOf(job);
        return {
          status: "working",
          ...common,
          message: reason ? `${phase.message}; ${reason}` : phase.message,
          ...(progress ? { progress } : {}),
        };
      }
      case "completed": {
        const pods =
          phase.rawStatus === "Rejected" ? [] : await this.#api.listPods(ref.namespace, ref.uid, context.signal);
        const ends = containerEnds(pods);
        const logs = await tailPodLogs(
          this.#api,
          ref.namespace,
          podsToTail(pods, phase.isError),
          this.#settings.logs,
          context.signal,
        );
        const snapshot: JobSnapshot = {
          status: "completed",
          ...common,
          message: phase.message,
          result: buildJobResult(job, phase, ends, logs),
        };
        this.#finished.set(ref.uid, snapshot);
        return snapshot;
      }
    }
  }

  /** A Job that is gone: its kept end, a cancel or a rejection this adapter made, else expired. */
  #answerGone(ref: JobRef, lastSeen: V1Job | undefined): JobSnapshot {
    const seenAnnotations = lastSeen?.metadata?.annotations ?? {};
    const at = new Date().toISOString();
    if (this.#rejected.has(ref.uid) || seenAnnotations[annotations.approval] === "rejected") {
      const job = lastSeen ?? { metadata: { namespace: ref.namespace, name: ref.name, uid: ref.uid } };
      const phase = mapKubernetesStatus({
        ...job,
        metadata: { ...job.metadata, annotations: { ...seenAnnotations, [annotations.approval]: "rejected" } },
      });
      if (phase.phase === "completed") {
        const snapshot: JobSnapshot = {
          status: "completed",
          rawStatus: phase.rawStatus,
          message: phase.message,
          updatedAt: at,
          result: buildJobResult(job, phase, [], []),
        };
        this.#finished.set(ref.uid, snapshot);
        return snapshot;
      }
    }
    const cancelRequested =
      this.#cancelRequested.has(ref.uid) || seenAnnotations[annotations.cancelRequested] !== undefined;
    const lastPhase = lastSeen ? mapKubernetesStatus(lastSeen) : undefined;
    if (cancelRequested && lastSeen && lastPhase?.phase === "completed") {
      // The Job won the race with the cancel: it ends as it finished, without the pods deleted with it.
      const snapshot: JobSnapshot = {
        status: "completed",
        rawStatus: lastPhase.rawStatus,
        message: lastPhase.message,
        updatedAt: lastChangeOf(lastSeen) ?? at,
        result: buildJobResult(lastSeen, lastPhase, [], [], "its pods were deleted with it when the cancel arrived"),
      };
      this.#finished.set(ref.uid, snapshot);
      return snapshot;
    }
    if (cancelRequested) {
      const snapshot: JobSnapshot = {
        status: "cancelled",
        rawStatus: "Cancelled",
        message: "the Job was cancelled: deleted with its pods",
        updatedAt: at,
      };
      this.#finished.set(ref.uid, snapshot);
      return snapshot;
    }
    const finishedBefore = lastPhase?.phase === "completed";
    throw new JobNotFoundError(
      finishedBefore
        ? `the Job ${ref.namespace}/${ref.name} finished and the cluster has deleted it since (ttlSecondsAfterFinished)`
        : `the Job ${ref.namespace}/${ref.name} no longer exists`,
    );
  }

  /** Why a Job is not running yet, read from its pods at most every podReadIntervalMs (or when it changed). */
  async #pendingReason(ref: JobRef, job: V1Job, context: AdapterContext): Promise<string | undefined> {
    const version = job.metadata?.resourceVersion ?? "";
    const known = this.#pendingReasons.get(ref.uid);
    if (known && known.version === version && Date.now() - known.at < this.#settings.podReadIntervalMs)
      return known.reason;
    const pods = await this.#api.listPods(ref.namespace, ref.uid, context.signal);
    const events =
      pods.length === 0 ? await this.#api.listJobEvents(ref.namespace, ref.uid, context.signal).catch(() => []) : [];
    const reason = pendingReason(pods, events);
    this.#pendingReasons.set(ref.uid, { at: Date.now(), version, reason });
    return reason;
  }
}

/** A finished Job's time of change is when it finished; a running one's, its latest condition or start. */
function lastChangeOf(job: V1Job): string | undefined {
  const status = job.status ?? {};
  const times = [
    status.completionTime,
    ...(status.conditions ?? []).map((condition) => condition.lastTransitionTime),
    status.startTime,
    job.metadata?.creationTimestamp,
  ]
    .filter((time) => time !== undefined && time !== null)
    .map((time) => new Date(time as Date | string).getTime())
    .filter((time) => !Number.isNaN(time));
  if (status.completionTime) return new Date(status.completionTime).toISOString();
  return times.length > 0 ? new Date(Math.max(...times)).toISOString() : undefined;
}

function progressOf(job: V1Job): { progress: number; total?: number } | undefined {
  const completions = job.spec?.completions;
  if (completions === undefined || completions === null) return undefined;
  return { progress: job.status?.succeeded ?? 0, total: completions };
}
