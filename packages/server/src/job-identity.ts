import type { AnyJobAdapter, JsonValue } from "@jobtasks/core";

/**
 * The one key for "this job, as this task follows it": the adapter instance and the ref its `refSchema`
 * reads (the parsed ref, the one every do* method receives). The snapshot caches, the holds after a
 * Retry-After and the answer ledger all key on it, so they can never disagree about which job a task is.
 *
 * The parsed ref, not the sealed one, because one job can be sealed in more than one spelling (an older
 * release's shape that the schema completes, members written in another order), and what the adapter
 * reads is what names the upstream job. The encoding sorts object keys, so key order never splits a job
 * in two. What a task follows of a job (GitHub's run attempt, GitLab's retry watermark `jobsUpTo`) is
 * part of the ref, so two tasks share an identity exactly when they follow the same run: a finished
 * answer is never served to a task of another attempt.
 */
export function jobIdentity(instance: string, ref: JsonValue): string {
  // One JSON array, so no instance name (whatever it holds) can run into the ref.
  return canonicalJson([instance, ref]);
}

/**
 * The job identity of a task's target: what names the job is the ref, or the identity the adapter's events
 * declare for it when one job can be written as several refs (GitHub's owner and repository names are
 * case-insensitive). The snapshot cache, the answer ledger and the event router all key on this, so an
 * event reaches exactly the cache entry and the waits of the tasks that follow the job.
 */
export function jobIdentityOf(target: { instance: string; adapter: AnyJobAdapter; ref: JsonValue }): string {
  return jobIdentity(target.instance, target.adapter.events?.jobIdentity?.(target.ref) ?? target.ref);
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
