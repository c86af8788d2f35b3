import type { AnyJobAdapter, JobSnapshot, JsonValue } from "@jobtasks/core";
import { createTestContext } from "@jobtasks/testkit";

/** Read a job through the adapter until `predicate` holds, as an MCP client polling tasks/get would. */
export async function pollSnapshot(
  adapter: AnyJobAdapter,
  ref: JsonValue,
  predicate: (snapshot: JobSnapshot) => boolean,
  // Generous for a loaded CI machine; still well inside vitest's 20 s test timeout.
  timeoutMs = 15_000,
): Promise<JobSnapshot> {
  const deadline = Date.now() + timeoutMs;
  let last: JobSnapshot | undefined;
  while (Date.now() < deadline) {
    last = await adapter.doGetStatus(ref, createTestContext());
    if (predicate(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`the job never reached the expected state; last snapshot: ${JSON.stringify(last)}`);
}

export function pollStatus(
  adapter: AnyJobAdapter,
  ref: JsonValue,
  status: JobSnapshot["status"],
): Promise<JobSnapshot> {
  return pollSnapshot(adapter, ref, (snapshot) => snapshot.status === status);
}
