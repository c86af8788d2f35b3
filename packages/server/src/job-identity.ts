import type { AnyJobAdapter, JsonValue } from "@jobtasks/core";

/**
 * The key for "this job, as this task follows it": the adapter instance and the ref its `refSchema` reads
 * (the parsed ref, the one every do* method receives). The snapshot caches, the holds after a Retry-After,
 * the answer ledger and the event router all key on it or on an identity the adapter declares (jobKeysOf),
 * so they can never disagree about which job a task is.
 *
 * The parsed ref, not the sealed one, because one job can be sealed in more than one spelling (an older
 * release's shape that the schema completes, members written in another order), and what the adapter
 * reads is what names the upstream job. The encoding sorts object keys, so key order never splits a job
 * in two. What a task follows of a job (GitHub's run attempt, GitLab's retry watermark `jobsUpTo`) is
 * part of the ref, so two refs share this key exactly when they follow the same run (jobKeysOf below
 * says which of the two keys each cache uses when an adapter's events name the job without its run).
 */
export function jobIdentity(instance: string, ref: JsonValue): string {
  // One JSON array, so no instance name (whatever it holds) can run into the ref.
  return canonicalJson([instance, ref]);
}

/**
 * Which job a task's target is: the adapter instance and what names the job upstream, which is the ref or
 * the identity the adapter's events declare for it (`jobIdentity`: the job without the generation a task
 * follows, normalised, e.g. GitLab's project and pipeline without the retry watermark `jobsUpTo`). The
 * event router, the waits an event wakes and the answer ledger key on it, so an event reaches every task of
 * the job whatever run of it each follows.
 */
export function jobIdentityOf(target: JobTarget): string {
  return jobKeysOf(target).job;
}

/**
 * The two keys of a task's target: `job` (jobIdentityOf) and `snapshot`, the job as this task follows it,
 * which the snapshot caches and the holds after a Retry-After key on, so a finished run is never served to a
 * task of another run. `snapshot` is the ref with the identity's members in place of its own (the
 * identity, normalised, plus the generation the identity leaves out); for an identity that is not an
 * object, the identity and the whole ref. Without a declared identity, both keys are the ref's.
 */
export function jobKeysOf(target: JobTarget): JobKeys {
  // A task's target is one object for as long as its opened id is remembered (frozen with it), and each
  // read asks for its keys more than once (the service, then the reader): encoded once per target.
  let keys = keysOfTarget.get(target);
  if (keys === undefined) {
    keys = encodeJobKeys(target);
    keysOfTarget.set(target, keys);
  }
  return keys;
}

type JobTarget = { instance: string; adapter: AnyJobAdapter; ref: JsonValue };
type JobKeys = { job: string; snapshot: string };

const keysOfTarget = new WeakMap<JobTarget, JobKeys>();

function encodeJobKeys(target: JobTarget): JobKeys {
  const identity = target.adapter.events?.jobIdentity?.(target.ref);
  if (identity === undefined) {
    const key = jobIdentity(target.instance, target.ref);
    return { job: key, snapshot: key };
  }
  const job = jobIdentity(target.instance, identity);
  const { ref } = target;
  if (!isObject(identity) || !isObject(ref)) return { job, snapshot: canonicalJson([target.instance, identity, ref]) };
  // Every member of the ref named by the identity: the identity is the whole of it (GitHub's run attempt).
  if (Object.keys(ref).every((member) => Object.hasOwn(identity, member))) return { job, snapshot: job };
  return { job, snapshot: jobIdentity(target.instance, { ...ref, ...identity }) };
}

function isObject(value: JsonValue | undefined): value is { [member: string]: JsonValue } {
  return value !== null && typeof value === "object" && !Array.isArray(value);
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
