import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { EventDeliveryV1 } from "@jobtasks/core";
import type { TaskService } from "./task-service.js";
import type { Logger } from "./logger.js";

/** The largest delivery body taken; GitHub's own cap on a webhook payload is 25 MB, its usual ones are a few KB. */
export const maxDeliveryBytes = 1024 * 1024;

export interface EventReceiverOptions {
  service: TaskService;
  logger: Logger;
  /** How long a delivery id is remembered, so that a second delivery of it has no effect. Default 24 h. */
  deliveryMemoryMs?: number;
  /** Delivery ids remembered at most. Default 10,000. */
  maxDeliveries?: number;
  now?: () => number;
}

export interface ReceiveAnswer {
  httpStatus: number;
  body: Record<string, unknown>;
}

/**
 * What `POST /hooks/<instance>` does with a delivery, independent of HTTP: the adapter instance's events
 * verify it (a refusal has no effect and reads nothing upstream), a delivery id seen before is answered
 * without effect, and each job it names has its cached snapshot replaced or dropped and its waits woken.
 * Nothing here waits for the upstream: the answer is given before any read the event causes.
 */
export class EventReceiver {
  readonly #service: TaskService;
  readonly #logger: Logger;
  readonly #now: () => number;
  /** Delivery ids by instance, with expiry: redeliveries and replays of one have no second effect. */
  readonly #seen: LRUCache<string, true>;
  readonly #deliveryMemoryMs: number;

  constructor(options: EventReceiverOptions) {
    this.#service = options.service;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
    this.#deliveryMemoryMs = options.deliveryMemoryMs ?? 24 * 60 * 60 * 1000;
    this.#seen = new LRUCache({
      max: options.maxDeliveries ?? 10_000,
      ttl: this.#deliveryMemoryMs,
      perf: { now: () => this.#now() },
    });
  }

  /** Whether deliveries to this instance are taken (it exists and its adapter receives events). */
  accepts(instance: string): boolean {
    return this.#service.registry.adapter(instance)?.events !== undefined;
  }

  /** Receive one delivery, in a span, counted by its outcome under `jobtasks.webhook.deliveries`. */
  async receive(instance: string, delivery: Omit<EventDeliveryV1, "receivedAt">): Promise<ReceiveAnswer> {
    const telemetry = this.#service.telemetry;
    if (!telemetry.enabled) return this.#receive(instance, delivery);
    // An instance name that no adapter has is the caller's free text: it is never a label.
    const known = this.accepts(instance) ? instance : "_unknown";
    return telemetry.inSpan("jobtasks.webhook.delivery", { "jobtasks.adapter.instance": known }, async (span) => {
      const answer = await this.#receive(instance, delivery);
      const outcome = deliveryOutcome(answer);
      span?.setAttribute("jobtasks.delivery.outcome", outcome);
      telemetry.instruments?.webhookDeliveries.add(1, {
        "jobtasks.adapter.instance": known,
        "jobtasks.delivery.outcome": outcome,
      });
      return answer;
    });
  }

  async #receive(instance: string, delivery: Omit<EventDeliveryV1, "receivedAt">): Promise<ReceiveAnswer> {
    const events = this.#service.registry.adapter(instance)?.events;
    if (!events) return { httpStatus: 404, body: { error: "no adapter instance of this name receives events" } };
    const received: EventDeliveryV1 = { ...delivery, receivedAt: this.#now() };
    const log = { adapter: instance };
    let verification;
    try {
      verification = await events.doVerifyDelivery(received);
    } catch (error) {
      this.#logger.error({ ...log, err: error }, "upstream event: the adapter could not verify the delivery");
      return refused;
    }
    if (!verification.verified) {
      this.#logger.info({ ...log, outcome: "refused", reason: verification.reason }, "upstream event refused");
      return refused;
    }
    // Verified is enough to know the deliveries arrive, even for a repeat or one that concerns no job.
    this.#service.noteVerifiedDelivery(instance);
    const deliveryId = verification.deliveryId;
    const seenKey = deliveryId === undefined ? undefined : `${instance}\u0000${deliveryId}`;
    const shared = this.#service.sharedState;
    const duplicate = () => {
      this.#logger.info({ ...log, deliveryId, outcome: "duplicate delivery, ignored" }, "upstream event received");
      return { httpStatus: 200, body: { ok: true, duplicate: true } };
    };
    if (seenKey !== undefined && this.#seen.has(seenKey)) return duplicate();
    // Marked before anything else happens, so that two copies arriving together take effect once.
    if (seenKey !== undefined) this.#seen.set(seenKey, true);
    // And across replicas: a redelivery reaching another replica is a duplicate there too.
    if (seenKey !== undefined && !(await shared.deliveries.firstSighting(seenKey, this.#deliveryMemoryMs)))
      return duplicate();
    let read;
    try {
      read = await events.doReadDelivery(received);
    } catch (error) {
      if (seenKey !== undefined) {
        this.#seen.delete(seenKey);
        shared.deliveries.forget(seenKey);
      }
      this.#logger.info(
        { ...log, deliveryId, outcome: "unreadable", reason: error instanceof Error ? error.message : String(error) },
        "upstream event refused",
      );
      return { httpStatus: 400, body: { error: "the delivery could not be read" } };
    }
    const jobs = read.jobs.map((job) => {
      const applied = this.#service.applyJobEvent(instance, job);
      if (applied === undefined) return { outcome: "ignored: no such adapter instance" };
      return { ...(applied.job !== undefined ? { job: jobLabel(applied.job) } : {}), outcome: applied.effect };
    });
    // Every other replica applies it too: its caches, its waits and its subscribers.
    if (read.jobs.length > 0) shared.events.publish({ instance, jobs: read.jobs });
    this.#logger.info(
      {
        ...log,
        event: read.event,
        ...(read.action !== undefined ? { action: read.action } : {}),
        ...(deliveryId !== undefined ? { deliveryId } : {}),
        jobs,
        outcome: jobs.length === 0 ? "concerns no job" : "applied",
      },
      "upstream event received",
    );
    return { httpStatus: 202, body: { ok: true, jobs: jobs.length } };
  }
}

/** A delivery's outcome as the metric labels it, from the answer it got (a fixed list). */
function deliveryOutcome(answer: ReceiveAnswer): string {
  if (answer.httpStatus === 202) return "applied";
  if (answer.httpStatus === 200) return "duplicate";
  if (answer.httpStatus === 401) return "refused";
  if (answer.httpStatus === 400) return "unreadable";
  if (answer.httpStatus === 404) return "unknown_instance";
  return "other";
}

const refused: ReceiveAnswer = { httpStatus: 401, body: { error: "the delivery's signature does not verify" } };

/**
 * A job as the log names it: a short digest of its `job` key (job-identity.ts), the same for every delivery
 * about it however the delivery spells its ref, which tells jobs apart without writing repository names,
 * ARNs or account ids into the log.
 */
function jobLabel(job: string): string {
  return `job-${createHash("sha256").update(job).digest("hex").slice(0, 12)}`;
}
