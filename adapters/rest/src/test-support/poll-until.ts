import type { AnyJobAdapter, JobSnapshot, JsonValue } from "@jobtasks/core";
import { testContext } from "./test-context.js";

/** Read a job's status until `done` says so, as a client polling tasks/get would; fails after `timeoutMs`. */
export async function pollUntil(
  adapter: AnyJobAdapter,
  reference: JsonValue,
  done: (snapshot: JobSnapshot) => boolean,
  // Generous for a loaded CI machine; still well inside vitest's 20 s test timeout.
  timeoutMs = 15_000,
): Promise<{ last: JobSnapshot; seen: JobSnapshot[] }> {
  const seen: JobSnapshot[] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const snapshot = await adapter.doGetStatus(reference, testContext());
    seen.push(snapshot);
    if (done(snapshot)) return { last: snapshot, seen };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`gave up after ${timeoutMs} ms; last status: ${JSON.stringify(seen.at(-1))}`);
}
