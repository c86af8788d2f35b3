import type { JobDetail } from "@aws-sdk/client-batch";
import { describe, expect, it } from "vitest";
import { mapBatchJobStatus, wasCancelled } from "./map-aws-batch-status.js";
import { fixtureJob } from "./test-support/fixtures.js";

const textOf = (snapshot: ReturnType<typeof mapBatchJobStatus>): string =>
  (snapshot.result?.content[0] as { text: string } | undefined)?.text ?? "";

describe("mapBatchJobStatus", () => {
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
    const snapshot = mapBatchJobStatus(
      fixtureJob("describe-jobs-running.json", { status: rawStatus as JobDetail["status"] }),
    );
    expect(snapshot.status).toBe(expected);
    expect(snapshot.rawStatus).toBe(rawStatus);
  });

  it("says an unknown status is unknown and keeps watching", () => {
    const snapshot = mapBatchJobStatus(
      fixtureJob("describe-jobs-running.json", { status: "QUEUED_V2" as JobDetail["status"] }),
    );
    expect(snapshot.message).toMatch(/^QUEUED_V2: .*does not know; still watching/);
    expect(snapshot.result).toBeUndefined();
  });

  it("reports why a RUNNABLE job waits, without the account id of the ARN it quotes", () => {
    const snapshot = mapBatchJobStatus(fixtureJob("describe-jobs-runnable-no-capacity.json"));
    expect(snapshot.status).toBe("working");
    expect(snapshot.message).toContain("RUNNABLE: CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY");
    expect(snapshot.message).toContain("compute-environment/gpu-ce");
    expect(snapshot.message).not.toContain("123456789012");
  });

  it("reports array progress from the status summary of a PENDING parent", () => {
    const snapshot = mapBatchJobStatus(fixtureJob("describe-jobs-array-pending.json"));
    expect(snapshot.status).toBe("working");
    expect(snapshot.message).toBe("PENDING: 734/1000 succeeded, 3 failed, 12 running");
    expect(snapshot.updatedAt).toBe(new Date(1795000900000).toISOString());
  });

  it("shows which attempt a retried job is on", () => {
    const failedFirst = fixtureJob("describe-jobs-failed.json").attempts?.slice(0, 1);
    const snapshot = mapBatchJobStatus(fixtureJob("describe-jobs-running.json", { attempts: failedFirst }));
    expect(snapshot.message).toBe("RUNNING: attempt 2 of 2");
  });

  it("completes a SUCCEEDED job with exit code, duration, attempts and log stream", () => {
    const snapshot = mapBatchJobStatus(fixtureJob("describe-jobs-succeeded.json"));
    expect(snapshot.status).toBe("completed");
    expect(snapshot.result?.isError).toBeUndefined();
    expect(snapshot.result?.structuredContent).toEqual({
      jobId: "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f",
      jobName: "render_frames-3f9a1c0d2b4e6f8a0c1d2e3f",
      status: "SUCCEEDED",
      statusReason: "Essential container in task exited",
      exitCode: 0,
      attempts: 1,
      startedAt: new Date(1795000060000).toISOString(),
      stoppedAt: new Date(1795000312000).toISOString(),
      durationMs: 252000,
      logStreamName: "blender-render/default/0f1e2d3c4b5a69788796a5b4c3d2e1f0",
    });
    expect(textOf(snapshot)).toContain("succeeded: exit code 0, ran 4m 12s, 1 attempt");
    expect(snapshot.updatedAt).toBe(new Date(1795000312000).toISOString());
  });

  it("completes a FAILED job with isError, the reason and the LAST attempt's exit code and log tail", () => {
    const snapshot = mapBatchJobStatus(fixtureJob("describe-jobs-failed.json"), {
      text: "KeyError: 'customer_id'",
      truncated: false,
    });
    expect(snapshot.status).toBe("completed");
    expect(snapshot.result?.isError).toBe(true);
    expect(snapshot.result?.structuredContent).toMatchObject({
      status: "FAILED",
      exitCode: 1,
      attempts: 2,
      logStreamName: "etl/default/eeee5555ffff6666aaaa7777bbbb8888",
      logTail: "KeyError: 'customer_id'",
    });
    expect(textOf(snapshot)).toContain(
      "failed: Essential container in task exited. Last attempt: exit code 1, ran 42s, 2 attempts.",
    );
    expect(textOf(snapshot)).toContain("KeyError");
    expect(JSON.stringify(snapshot)).not.toContain("arn:aws");
  });

  it("puts array counts into a finished array job's result", () => {
    const job = fixtureJob("describe-jobs-array-pending.json", {
      status: "FAILED",
      arrayProperties: { size: 4, statusSummary: { SUCCEEDED: 3, FAILED: 1 } },
    });
    const snapshot = mapBatchJobStatus(job);
    expect(snapshot.result?.structuredContent?.array).toEqual({ size: 4, succeeded: 3, failed: 1 });
    expect(textOf(snapshot)).toContain("Array job of 4: 3 succeeded, 1 failed.");
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
    const job = fixtureJob("describe-jobs-cancelled.json", changes);
    expect(wasCancelled(job)).toBe(true);
    const snapshot = mapBatchJobStatus(job);
    expect(snapshot.status).toBe("cancelled");
    expect(snapshot.rawStatus).toBe("FAILED");
    expect(snapshot.result).toBeUndefined();
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
  ] as const)(
    "reports a job Batch stopped itself because %s as completed with isError, not as a user's cancel",
    (_why, changes) => {
      const job = fixtureJob("describe-jobs-cancelled.json", changes);
      const snapshot = mapBatchJobStatus(job);
      expect(snapshot.status).toBe("completed");
      expect(snapshot.result?.isError).toBe(true);
      expect(snapshot.message).toBe(`FAILED: ${changes.statusReason}`);
    },
  );

  it("keeps rawStatus a string even when AWS sends something else", () => {
    const snapshot = mapBatchJobStatus(fixtureJob("describe-jobs-running.json", { status: 7 as never }));
    expect(snapshot).toMatchObject({ status: "working", rawStatus: "7" });
  });

  it("keeps a SUCCEEDED job completed even if a terminate raced and lost", () => {
    const snapshot = mapBatchJobStatus(fixtureJob("describe-jobs-succeeded.json", { isTerminated: true }));
    expect(snapshot.status).toBe("completed");
  });
});
