import type { JobDetail } from "@aws-sdk/client-batch";
import { z, type JobEventsV1, type JobEventV1, type JsonValue } from "@jobtasks/core";
import { parseDeliveryJson, sameSecret } from "@jobtasks/core/adapter-utils";
import { isoTimeOf } from "./batch-job-result.js";
import { batchJobIdSchema, type BatchJobRef } from "./batch-job-ref.js";
import { buildJobSnapshot } from "./build-job-snapshot.js";
import { mapAwsBatchStatus } from "./map-aws-batch-status.js";
import { hasFailedChildren } from "./read-failed-children.js";

export const batchEventSource = "aws.batch";
export const batchJobStateChange = "Batch Job State Change";

export interface BatchEventSettings {
  /** The value the connection sends in `header`. */
  secret: string;
  /** The header's name, in any case (headers reach the adapter in lower case). */
  header: string;
  /** Whether finished results carry a log tail (the `logs` option), which no event holds. */
  logsAttached: boolean;
}

/**
 * AWS Batch's "Batch Job State Change" events, sent by an EventBridge rule to an API destination: an HTTP
 * POST of the event's JSON with the connection's secret in a header. The event's `detail` is the job as
 * DescribeJobs describes it, so the adapter's own status mapping turns it into the snapshot a status read
 * would give, whenever that needs nothing the event lacks.
 */
export function batchStateChangeEvents(settings: BatchEventSettings): JobEventsV1<BatchJobRef> {
  const header = settings.header.toLowerCase();
  /**
   * Each body as verification parsed it (for the event id), for the read of the same delivery that follows:
   * one parse per delivery. Keyed by the body itself, so it goes with the delivery.
   */
  const parsedBodies = new WeakMap<Uint8Array, { value: unknown } | { error: unknown }>();
  const parsedOnce = (body: Uint8Array): unknown => {
    let parsed = parsedBodies.get(body);
    if (!parsed) {
      try {
        parsed = { value: parseDeliveryJson(body) };
      } catch (error) {
        parsed = { error };
      }
      parsedBodies.set(body, parsed);
    }
    if ("error" in parsed) throw parsed.error;
    return parsed.value;
  };
  return {
    async doVerifyDelivery({ headers, body }) {
      const presented = headers[header];
      if (presented === undefined) return { verified: false, reason: `no ${header} header` };
      if (!sameSecret(presented, settings.secret))
        return { verified: false, reason: `${header} does not match the event secret` };
      const deliveryId = eventIdOf(body, parsedOnce);
      return deliveryId === undefined ? { verified: true } : { verified: true, deliveryId };
    },

    async doReadDelivery({ body }) {
      const event = envelopeSchema.parse(parsedOnce(body));
      const detailType = event["detail-type"];
      // Another rule's events sent here by mistake (a queue blocked, a compute environment changed): no job.
      if (event.source !== batchEventSource || detailType !== batchJobStateChange)
        return { event: detailType ?? event.source ?? "unknown", jobs: [] };
      const detail = detailSchema.parse(event.detail);
      return { event: detailType, action: detail.status, jobs: [jobEventOf(detail, event.time, settings)] };
    },

    // A submit tool seals `{ jobId, submittedAt }`, watch_job `{ jobId }`, an event names `{ jobId }`: the
    // job id alone is the job (Batch never re-runs a job; retries are attempts inside it).
    jobIdentity: (ref): JsonValue => ({ jobId: ref.jobId }),
  };
}

/** EventBridge's id of the event, the same on every retry of its delivery; undefined when the body is not one. */
function eventIdOf(body: Uint8Array, parse: (body: Uint8Array) => unknown): string | undefined {
  try {
    const parsed = parse(body);
    if (parsed === null || typeof parsed !== "object") return undefined;
    const id = (parsed as { id?: unknown }).id;
    return typeof id === "string" && id.length > 0 && id.length <= 128 ? id : undefined;
  } catch {
    // The read that follows refuses the body with a 400; the id only keeps a second delivery from acting.
    return undefined;
  }
}

const envelopeSchema = z.looseObject({
  id: z.string().optional(),
  source: z.string().optional(),
  "detail-type": z.string().optional(),
  time: z.string().optional(),
  detail: z.unknown().optional(),
});

const epochMs = z.number().finite().optional();
const containerSchema = z.looseObject({
  exitCode: z.number().int().optional(),
  reason: z.string().optional(),
  logStreamName: z.string().optional(),
});

/**
 * Only what the status mapping and the result read, checked for type; AWS sends more (ARNs of the queue,
 * the definition, the container instance), none of which reaches a snapshot.
 */
const detailSchema = z.looseObject({
  jobId: batchJobIdSchema,
  jobName: z.string().optional(),
  status: z.string().min(1),
  statusReason: z.string().optional(),
  createdAt: epochMs,
  startedAt: epochMs,
  stoppedAt: epochMs,
  isCancelled: z.boolean().optional(),
  isTerminated: z.boolean().optional(),
  container: containerSchema.optional(),
  attempts: z
    .array(z.looseObject({ container: containerSchema.optional(), startedAt: epochMs, stoppedAt: epochMs }))
    .optional(),
  retryStrategy: z.looseObject({ attempts: z.number().int().optional() }).optional(),
  arrayProperties: z
    .looseObject({
      size: z.number().int().optional(),
      index: z.number().int().optional(),
      statusSummary: z.record(z.string(), z.number()).optional(),
      statusSummaryLastUpdatedAt: epochMs,
    })
    .optional(),
});

type BatchEventDetail = z.infer<typeof detailSchema>;

/**
 * What the event tells of its job. Working (SUBMITTED to RUNNING) and cancelled: the snapshot, as a status
 * read would build it from DescribeJobs, with no request to AWS. Finished (SUCCEEDED, or FAILED for a
 * reason of its own): the snapshot too, unless the result needs what the event lacks: the end of the
 * CloudWatch log (`logs`) or which children of a failed array failed (ListJobs). Then "changed, read
 * again", since a finished answer is kept for good and must be the one every reader gives.
 */
function jobEventOf(
  detail: BatchEventDetail,
  eventTime: string | undefined,
  settings: BatchEventSettings,
): JobEventV1<BatchJobRef> {
  // The detail is DescribeJobs' JobDetail, as AWS documents it; the schema checked the fields read here.
  const job = detail as unknown as JobDetail;
  const ref: BatchJobRef = { jobId: detail.jobId };
  const changedAt = changeTimeOf(detail, eventTime);
  const phase = mapAwsBatchStatus(job);
  if (phase.status === "completed" && (settings.logsAttached || hasFailedChildren(job)))
    return changedAt ? { ref, updatedAt: changedAt } : { ref };
  const snapshot = buildJobSnapshot(job);
  // EventBridge does not keep a job's events in order: the time lets the server ignore a RUNNABLE that
  // arrives after the RUNNING it preceded.
  if (phase.status === "working" || snapshot.updatedAt === undefined) {
    if (changedAt) snapshot.updatedAt = changedAt;
  }
  return { ref, snapshot };
}

/**
 * The latest time the event knows of the job: the event's own (whole seconds) or, finer, when the job
 * started, stopped or its children last moved. A RUNNING event's startedAt comes after the RUNNABLE
 * event's time, so the two order themselves.
 */
function changeTimeOf(detail: BatchEventDetail, eventTime: string | undefined): string | undefined {
  const eventMs = eventTime === undefined ? Number.NaN : Date.parse(eventTime);
  const candidates = [
    eventMs,
    detail.startedAt,
    detail.stoppedAt,
    detail.arrayProperties?.statusSummaryLastUpdatedAt,
  ].filter((time): time is number => typeof time === "number" && Number.isFinite(time));
  return candidates.length > 0 ? isoTimeOf(Math.max(...candidates)) : undefined;
}
