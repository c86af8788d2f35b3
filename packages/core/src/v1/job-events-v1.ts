import type { JsonValue } from "../json.js";
import type { JobSnapshotV1 } from "./job-adapter-v1.js";

/**
 * Upstream events, the optional part of the v1 contract: an adapter whose upstream can tell when a job
 * changes (a webhook, an EventBridge API destination, a callback URL) says how to check that a delivery
 * came from it and which jobs it concerns. Everything else is the server's, once for every adapter: the
 * endpoint (`POST /hooks/<instance>`), the body limit, deduplication by delivery id, routing to the job,
 * replacing or dropping its cached snapshot, waking the waits on it and pushing to its listeners.
 */
export interface JobEventsV1<Ref extends JsonValue = JsonValue> {
  /**
   * Whether the delivery came from the upstream: a signature over `body` (GitHub's X-Hub-Signature-256,
   * a REST API's HMAC with a timestamp checked against `receivedAt`), or a shared secret in a header
   * (GitLab's X-Gitlab-Token, the header an EventBridge connection sets). Compare in constant time. A
   * refused delivery has no effect at all: nothing is decoded, nothing is read upstream.
   */
  doVerifyDelivery(delivery: EventDeliveryV1): Promise<DeliveryVerificationV1>;
  /**
   * The jobs a verified delivery concerns, each named by the ref a task of it holds. An event about
   * nothing a task could follow (a ping, another kind of event) gives no jobs. Throwing means the
   * delivery cannot be read: it is answered 400 and has no effect.
   */
  doReadDelivery(delivery: EventDeliveryV1): Promise<DeliveryEventsV1<Ref>>;
  /**
   * The job as an event names it: an object of the ref's members that name the upstream job, normalised
   * where one job can be written several ways (GitHub's owner and repository names are case-insensitive),
   * and without what a task follows of the job that no event can know (GitLab's `jobsUpTo`, the retry
   * generation of a pipeline retried in place; a generation every payload names, as GitHub's run attempt,
   * stays in). The server routes events and wakes waits on the instance and this identity: an event reaches
   * every task of the job, whatever generation each follows. It keys a task's cached snapshot on the ref
   * with the identity's members in place of its own (the identity plus the generation left out), so no task
   * is served another generation's answer. An event about a job whose generations differ should then give
   * no snapshot (a snapshot replaces every generation's), only "changed". Optional: the ref itself.
   */
  jobIdentity?(ref: Ref): JsonValue;
  /**
   * While this instance's events arrive, the server answers every job of it from its cached snapshot and
   * reads it again after its `eventSnapshotCacheMs` (30 s), the safety net for a lost delivery. An upstream
   * that meters requests (GitHub's hourly budget) answers here how long that safety read may wait instead,
   * given how many jobs of the instance are followed now, so that one safety read of each per interval fits
   * what the budget can spare. The server never waits less than its own window. Optional: that window.
   */
  safetyReadIntervalMs?(followedJobs: number): number;
}

/** One delivery as it arrived at `POST /hooks/<instance>`. */
export interface EventDeliveryV1 {
  /** Request headers, names in lower case; a header sent more than once is joined with ", ". */
  headers: Readonly<Record<string, string>>;
  /** The body, byte for byte as it arrived (signatures are computed over these bytes). At most 1 MiB. */
  body: Uint8Array;
  /** When it arrived, in milliseconds since the epoch on the server's clock (for timestamp tolerances). */
  receivedAt: number;
}

export type DeliveryVerificationV1 =
  /** `deliveryId`: the upstream's id of this delivery, when it gives one; a second delivery of it has no effect. */
  | { verified: true; deliveryId?: string }
  /** `reason` goes to the server's log (never to the sender); it must not quote the body. */
  | { verified: false; reason: string };

/** What a verified delivery says. */
export interface DeliveryEventsV1<Ref extends JsonValue = JsonValue> {
  /** The upstream's name for the event and its action ("workflow_run", "completed"), for the log line. */
  event: string;
  action?: string;
  jobs: ReadonlyArray<JobEventV1<Ref>>;
}

/**
 * One job an event concerns. With `snapshot` (the payload told the whole state, as doGetStatus would
 * have): the server serves it without asking the upstream. Without: the job changed, and its next read
 * goes to the upstream. Either way an event never moves a task backwards: a finished job stays finished,
 * and a snapshot whose `updatedAt` is older than what the server holds is ignored.
 */
export interface JobEventV1<Ref extends JsonValue = JsonValue> {
  ref: Ref;
  snapshot?: JobSnapshotV1;
  /** Without a snapshot: the upstream's ISO 8601 time of the change, when the payload gives it. */
  updatedAt?: string;
}
