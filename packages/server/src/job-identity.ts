import type { AnyJobAdapter, JsonValue } from "@jobtasks/core";
import { isPlainObject } from "@jobtasks/core/adapter-utils";

/**
 * Which job a task's target is, as the keys of everything the server keeps per job, so that no two of
 * them can disagree about it. A target is the adapter instance and the ref its `refSchema` reads (the
 * parsed ref, the one every do* method receives), never the sealed one: one job can be sealed in more than
 * one spelling (an older release's shape that the schema completes, members written in another order), and
 * what the adapter reads is what names the upstream job. The encoding sorts object keys, so key order never
 * splits a job in two, and is one JSON array, so no instance name (whatever it holds) runs into the ref.
 */
export interface JobIdentity {
  /**
   * The job: the instance and what names the job upstream, which is the identity the adapter's events
   * declare for the ref (`events.jobIdentity`: the job without the generation a task follows, normalised,
   * e.g. GitLab's project and pipeline without the retry watermark `jobsUpTo`), or the ref without one. The
   * event router, the waits an event wakes, the answer ledger and the event log's job label key on it, so
   * an event reaches every task of the job whatever run of it each follows.
   */
  job: string;
  /**
   * The job as this task follows it, which the snapshot caches, in-flight reads and the holds after a
   * Retry-After key on, so a finished run is never served to a task of another run: the ref with the
   * identity's members in place of its own (the identity, normalised, plus the generation the identity
   * leaves out); for an identity that is not an object, the identity and the whole ref. Without a declared
   * identity, or one that names every member of the ref (GitHub's run attempt), it is `job`.
   */
  snapshot: string;
}

export interface JobTarget {
  instance: string;
  adapter: AnyJobAdapter;
  ref: JsonValue;
}

/** The identity of a task's target (see JobIdentity). */
export function jobIdentity(target: JobTarget): JobIdentity {
  // A task's target is one object for as long as its opened id is remembered (frozen with it), and each
  // read asks for its identity more than once (the service, then the reader): encoded once per target.
  let identity = identityOfTarget.get(target);
  if (identity === undefined) {
    identity = encodeJobIdentity(target);
    identityOfTarget.set(target, identity);
  }
  return identity;
}

const identityOfTarget = new WeakMap<JobTarget, JobIdentity>();

function encodeJobIdentity({ instance, adapter, ref }: JobTarget): JobIdentity {
  const declared = adapter.events?.jobIdentity?.(ref);
  if (declared === undefined) {
    const key = canonicalJson([instance, ref]);
    return { job: key, snapshot: key };
  }
  const job = canonicalJson([instance, declared]);
  if (!isPlainObject(declared) || !isPlainObject(ref))
    return { job, snapshot: canonicalJson([instance, declared, ref]) };
  // Every member of the ref named by the identity: the identity is the whole of it (GitHub's run attempt).
  if (Object.keys(ref).every((member) => Object.hasOwn(declared, member))) return { job, snapshot: job };
  return { job, snapshot: canonicalJson([instance, { ...ref, ...declared } as JsonValue]) };
}

/** JSON with every object's keys in sorted order; otherwise what JSON.stringify writes. */
function canonicalJson(value: JsonValue): string {
  // Loops rather than callbacks: this runs on every status read, and stays a single function call.
  if (Array.isArray(value)) {
    const items: string[] = [];
    for (const item of value) items.push(item === undefined ? "null" : canonicalJson(item));
    return `[${items.join(",")}]`;
  }
  if (value !== null && typeof value === "object") {
    const members: string[] = [];
    for (const key of Object.keys(value).sort()) {
      const member = value[key];
      if (member !== undefined) members.push(`${JSON.stringify(key)}:${canonicalJson(member)}`);
    }
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value);
}
