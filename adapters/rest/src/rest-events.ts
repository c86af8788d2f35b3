import type { DeliveryEventsV1, JobEventsV1, JobEventV1, JsonValue } from "@jobtasks/core";
import { parseBoundedJson, parseDeliveryJson } from "@jobtasks/core/adapter-utils";
import { buildSnapshot } from "./build-snapshot.js";
import type { EventsOptions } from "./events-options-schema.js";
import { queryFirst } from "./json-path.js";
import { mapStatus } from "./map-rest-status.js";
import { pollIntervalFor } from "./poll-interval.js";
import type { RestJobRef } from "./rest-job-ref.js";
import type { ResolvedRestOptions } from "./rest-options.js";
import { ForeignOriginError, compactJobUrl, resolveJobUrl, type UrlPolicy } from "./url-builder.js";
import { verifySignature } from "./verify-delivery.js";

/**
 * A job API's callbacks, as the `events` block describes them: a delivery is verified by its signature
 * (or shared secret), then read for the job id and, when configured, the job's status. A callback knows
 * the job id only, never when a task started the job, so the job's identity is its id (see jobIdentity).
 */
export interface RestEventsSetup {
  config: ResolvedRestOptions;
  events: EventsOptions;
  /** The secret the verification checks against, read from the environment when the adapter was built. */
  secret: string;
  policy: UrlPolicy;
  /** The tool whose outputSchema a job's result is held to, if any (the one part of a ref that changes its answer). */
  resultSchemaTool: (ref: RestJobRef) => string | undefined;
}

export function restEvents({
  config,
  events,
  secret,
  policy,
  resultSchemaTool,
}: RestEventsSetup): JobEventsV1<RestJobRef> {
  const referenceKind = config.reference.kind ?? (config.reference.header ? "url" : "id");
  /** The tools whose results are held to a schema of their own: a task of each keeps a job apart. */
  const schemaTools = config.tools.filter((tool) => tool.outputSchema !== undefined).map((tool) => tool.name);
  /** Status and time read from the payload with the `status` value lists; messages render over the payload. */
  const { updatedAtPath: _statusDocumentTime, ...statusLists } = config.status;
  const payloadConfig: ResolvedRestOptions = {
    ...config,
    status: {
      ...statusLists,
      field: events.statusPath === undefined ? [] : [events.statusPath],
      ...(events.updatedAtPath === undefined ? {} : { updatedAtPath: events.updatedAtPath }),
    },
  };

  /** The job id as a task's ref holds it: an id as it came, a status URL in its short form. */
  function jobIdOf(value: unknown): string | undefined {
    if ((typeof value !== "string" || value === "") && typeof value !== "number")
      throw new Error(`the payload has no job id at ${events.jobIdPath}`);
    if (referenceKind === "id") return String(value);
    try {
      return compactJobUrl(policy, resolveJobUrl(policy, String(value)));
    } catch (error) {
      // A status URL on an origin this instance never follows cannot be any of its tasks' jobs.
      if (error instanceof ForeignOriginError) return undefined;
      throw error;
    }
  }

  /** What the payload says of the job: its state when it is enough for a snapshot, else that it changed. */
  function jobEvent(ref: RestJobRef, payload: unknown): Omit<JobEventV1<RestJobRef>, "ref"> {
    const updatedAt = events.updatedAtPath === undefined ? undefined : queryFirst(events.updatedAtPath, payload);
    const changed =
      typeof updatedAt === "string" && !Number.isNaN(Date.parse(updatedAt))
        ? { updatedAt: new Date(updatedAt).toISOString() }
        : {};
    if (events.statusPath === undefined) return changed;
    const status = queryFirst(events.statusPath, payload);
    if (status === undefined || status === null) return changed;
    const reading = mapStatus(payloadConfig.status, undefined, payload);
    // A completed job's result (and a waiting job's question) comes from its status document or the
    // follow-up result request, which a callback does not carry: those are read again.
    if (reading.gone || reading.status === "completed" || reading.status === "input_required") return changed;
    const snapshot = buildSnapshot(payloadConfig, {
      reading,
      body: payload,
      job: { id: ref.id },
      // A callback does not say how old the job is: the first step of the back-off.
      pollIntervalMs: pollIntervalFor(config.polling, 0, undefined),
    });
    return { snapshot };
  }

  return {
    async doVerifyDelivery(delivery) {
      const verification = verifySignature(events.verification, secret, delivery);
      if (!verification.verified) return verification;
      const deliveryId = deliveryIdOf(events, delivery.headers, delivery.body);
      return deliveryId === undefined ? { verified: true } : { verified: true, deliveryId };
    },

    async doReadDelivery(delivery): Promise<DeliveryEventsV1<RestJobRef>> {
      const payload = parseDeliveryJson(delivery.body, "the payload");
      const id = jobIdOf(queryFirst(events.jobIdPath, payload));
      const rawStatus = events.statusPath === undefined ? undefined : queryFirst(events.statusPath, payload);
      const action = typeof rawStatus === "string" || typeof rawStatus === "number" ? String(rawStatus) : undefined;
      const read = { event: "callback", ...(action !== undefined ? { action: action.slice(0, 100) } : {}) };
      if (id === undefined) return { ...read, jobs: [] };
      // createdAt only completes the ref's shape: the identity leaves it out.
      const ref: RestJobRef = { id, createdAt: Math.max(0, Math.floor(delivery.receivedAt)) };
      const news = jobEvent(ref, payload);
      // One job, named once for every answer its tasks can hold: without a tool's schema, and under each
      // tool's own outputSchema (whose result is checked against it, so it is cached apart).
      const refs = [ref, ...schemaTools.map((tool): RestJobRef => ({ ...ref, tool }))];
      const identities = new Set<string>();
      const jobs: JobEventV1<RestJobRef>[] = [];
      for (const each of refs) {
        const identity = JSON.stringify(identityOf(each));
        if (identities.has(identity)) continue;
        identities.add(identity);
        jobs.push({ ref: each, ...news });
      }
      return { ...read, jobs };
    },

    jobIdentity: (ref): JsonValue => identityOf(ref),
  };

  /**
   * A job's identity: its id, and the tool whose outputSchema its result is held to, if any. Not createdAt,
   * which a callback cannot know and which only paces polling: every task of one job id and one result
   * schema shares one cached snapshot, so an event about the id reaches them all.
   */
  function identityOf(ref: RestJobRef): JsonValue {
    const tool = resultSchemaTool(ref);
    return tool === undefined ? { id: ref.id } : { id: ref.id, tool };
  }
}

/** The delivery's id from its header or its payload, when the config names one and the delivery has it. */
function deliveryIdOf(
  events: EventsOptions,
  headers: Readonly<Record<string, string>>,
  body: Uint8Array,
): string | undefined {
  if (events.deliveryIdHeader !== undefined) {
    const value = headers[events.deliveryIdHeader.toLowerCase()]?.trim();
    return value ? value.slice(0, 200) : undefined;
  }
  if (events.deliveryIdPath === undefined) return undefined;
  const payload = parseBoundedJson(Buffer.from(body).toString("utf8"));
  // Unreadable: the read that follows says so (400); there is no id to remember it by.
  if (!payload.ok) return undefined;
  const value = queryFirst(events.deliveryIdPath, payload.value);
  return typeof value === "string" || typeof value === "number" ? String(value).slice(0, 200) : undefined;
}
