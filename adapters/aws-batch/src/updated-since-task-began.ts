import type { JobSnapshot } from "@jobtasks/core";
import { type BatchJobRef, taskBeganAtOf } from "./batch-job-ref.js";

/**
 * A snapshot whose updatedAt (the task's lastUpdatedAt) is not earlier than the task itself. A job
 * watched after it finished stopped before its task was created, and an array's status summary may have
 * last changed before the watch began: the task was last updated when it began, not before it existed.
 * The time comes from the sealed reference, so every replica answers the same. The job's own times stay
 * in the result.
 */
export function updatedSinceTaskBegan(snapshot: JobSnapshot, ref: BatchJobRef): JobSnapshot {
  const beganAt = taskBeganAtOf(ref);
  if (beganAt === undefined || snapshot.updatedAt === undefined) return snapshot;
  const updatedAt = Date.parse(snapshot.updatedAt);
  return Number.isNaN(updatedAt) || updatedAt >= beganAt ? snapshot : { ...snapshot, updatedAt: new Date(beganAt).toISOString() };
}
