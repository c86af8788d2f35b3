import type { JobDetail } from "@aws-sdk/client-batch";
import { describe, expect, it } from "vitest";
import { type BatchStatusFields, mapAwsBatchStatus, wasCancelled } from "./map-aws-batch-status.js";

const status = (value: string) => value as JobDetail["status"];

describe("mapAwsBatchStatus", () => {
  it.each([
    ["SUBMITTED", "working"],
    ["PENDING", "working"],
    ["RUNNABLE", "working"],
    ["STARTING", "working"],
    ["RUNNING", "working"],
    ["SUCCEEDED", "completed"],
    ["FAILED", "completed"],
    // A status AWS may add one day: non-terminal, raw value kept.
    ["PAUSED_FOR_MAINTENANCE", "working"],
  ] as const)("maps %s to %s and keeps the raw status", (rawStatus, expected) => {
    const phase = mapAwsBatchStatus({ status: status(rawStatus) });
    expect(phase.status).toBe(expected);
    expect(phase.rawStatus).toBe(rawStatus);
  });

  it.each<[string, BatchStatusFields, string]>([
    ["a running job", { status: "RUNNING" }, "RUNNING"],
    ["a succeeded job", { status: "SUCCEEDED", statusReason: "Essential container in task exited" }, "SUCCEEDED"],
    [
      "a job waiting for capacity, with its reason",
      { status: "RUNNABLE", statusReason: "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY" },
      "RUNNABLE: CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY",
    ],
    [
      "an array parent, with its children's progress",
      {
        status: "PENDING",
        arrayProperties: { size: 1000, statusSummary: { SUCCEEDED: 734, FAILED: 3, RUNNING: 10, STARTING: 2 } },
      },
      "PENDING: 734/1000 succeeded, 3 failed, 12 running",
    ],
    [
      "a retried job, with the attempt it is on",
      { status: "RUNNING", attempts: [{}], retryStrategy: { attempts: 2 } },
      "RUNNING: attempt 2 of 2",
    ],
    [
      "a failed job, with its reason",
      { status: "FAILED", statusReason: "Essential container in task exited" },
      "FAILED: Essential container in task exited",
    ],
    ["a failed job without a reason", { status: "FAILED" }, "FAILED"],
    [
      "a cancelled job, with the reason of its cancel",
      { status: "FAILED", isCancelled: true, statusReason: "Cancelled by someone" },
      "Cancelled: Cancelled by someone",
    ],
    ["a cancelled job without a reason", { status: "FAILED", isTerminated: true }, "Cancelled: cancelled"],
    [
      "a status jobtasks does not know",
      { status: status("QUEUED_V2") },
      "QUEUED_V2: a status jobtasks does not know; still watching",
    ],
    ["no status at all", {}, "UNKNOWN: a status jobtasks does not know; still watching"],
  ])("words the message of %s", (_case, job, message) => {
    expect(mapAwsBatchStatus(job).message).toBe(message);
  });

  it("leaves the words AWS wrote as they are: hiding what they quote is the snapshot's job", () => {
    const reason = "Queue arn:aws:batch:us-east-1:123456789012:job-queue/render is disabled";
    expect(mapAwsBatchStatus({ status: "RUNNABLE", statusReason: reason }).message).toBe(`RUNNABLE: ${reason}`);
  });

  it.each([
    ["isCancelled", { isCancelled: true, statusReason: "Cancelled by someone" }],
    ["isTerminated", { isCancelled: false, isTerminated: true, statusReason: "Terminated by ops" }],
    ["the reason doCancel sent", { isCancelled: false, statusReason: "jobtasks: cancelled via MCP tasks/cancel" }],
    [
      "the reason older versions sent",
      { isCancelled: false, statusReason: "jobtasks: cancelled by bob via MCP tasks/cancel" },
    ],
  ] as const)("maps FAILED after a cancel to cancelled (recognised by %s)", (_how, changes) => {
    const job: BatchStatusFields = { status: "FAILED", ...changes };
    expect(wasCancelled(job)).toBe(true);
    expect(mapAwsBatchStatus(job)).toMatchObject({ status: "cancelled", rawStatus: "FAILED" });
  });

  it.each([
    ["a dependency failed", { isCancelled: true, statusReason: "Dependent Job failed" }],
    ["its attempt timed out", { isTerminated: true, statusReason: "Job attempt duration exceeded timeout" }],
    // The queue's jobStateTimeLimitActions, with the statusReason AWS documents for them.
    [
      "it waited too long for capacity (queue policy)",
      {
        isCancelled: true,
        statusReason: "Canceled by JobStateTimeLimit action due to reason: CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY",
      },
    ],
    [
      "it could never fit a compute environment (queue policy)",
      {
        isTerminated: true,
        statusReason: "Terminated by JobStateTimeLimit action due to reason: MISCONFIGURATION:JOB_RESOURCE_REQUIREMENT",
      },
    ],
  ] as const)("maps a job Batch stopped itself because %s to completed, not to a user's cancel", (_why, changes) => {
    const phase = mapAwsBatchStatus({ status: "FAILED", ...changes });
    expect(phase).toEqual({ status: "completed", rawStatus: "FAILED", message: `FAILED: ${changes.statusReason}` });
  });

  it("keeps rawStatus a string even when AWS sends something else", () => {
    expect(mapAwsBatchStatus({ status: 7 as never })).toMatchObject({ status: "working", rawStatus: "7" });
  });

  it("keeps a SUCCEEDED job completed even if a terminate raced and lost", () => {
    expect(mapAwsBatchStatus({ status: "SUCCEEDED", isTerminated: true }).status).toBe("completed");
  });
});
