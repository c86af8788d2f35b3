import type { AnyJobAdapter, JsonValue } from "@jobtasks/core";

/**
 * The one key of a job on this server: the adapter instance and what names the job (the ref, or the
 * identity the adapter's events declare for it, when one job can be written as several refs). The
 * snapshot cache and the event router key on it, so an event reaches exactly the cache entry and the
 * waits of the tasks that follow the job.
 */
export function jobKeyOf(target: { adapterName: string; adapter: AnyJobAdapter; ref: JsonValue }): string {
  const identity = target.adapter.events?.jobIdentity?.(target.ref) ?? target.ref;
  return `${target.adapterName}\u0000${JSON.stringify(identity)}`;
}
