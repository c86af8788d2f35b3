import type { JobDetail } from "@aws-sdk/client-batch";
import { describe, expect, it } from "vitest";
import { buildJobSnapshot } from "./build-job-snapshot.js";
import { fixtureJob } from "./test-support/fixtures.js";

const textOf = (snapshot: ReturnType<typeof buildJobSnapshot>): string =>
  (snapshot.result?.content[0] as { text: string } | undefined)?.text ?? "";

describe("buildJobSnapshot", () => {
  it("says an unknown status is unknown, keeps watching, and builds no result", () => {
    const snapshot = buildJobSnapshot(
      fixtureJob("describe-jobs-running.json", { status: "QUEUED_V2" as JobDetail["status"] }),
    );
    expect(snapshot.message).toMatch(/^QUEUED_V2: .*does not know; still watching/);
    expect(snapshot.result).toBeUndefined();
  });

  it("reports why a RUNNABLE job waits, without the account id of the ARN it quotes", () => {
    const snapshot = buildJobSnapshot(fixtureJob("describe-jobs-runnable-no-capacity.json"));
    expect(snapshot.status).toBe("working");
    expect(snapshot.message).toContain("RUNNABLE: CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY");
    expect(snapshot.message).toContain("compute-environment/gpu-ce");
    expect(snapshot.message).not.toContain("123456789012");
  });

  it("reports array progress of a PENDING parent, updated when its status summary was", () => {
    const snapshot = buildJobSnapshot(fixtureJob("describe-jobs-array-pending.json"));
    expect(snapshot.status).toBe("working");
    expect(snapshot.message).toBe("PENDING: 734/1000 succeeded, 3 failed, 12 running");
    expect(snapshot.updatedAt).toBe(new Date(1795000900000).toISOString());
  });

  it("completes a SUCCEEDED job with exit code, duration, attempts and log stream", () => {
    const snapshot = buildJobSnapshot(fixtureJob("describe-jobs-succeeded.json"));
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
    const snapshot = buildJobSnapshot(fixtureJob("describe-jobs-failed.json"), {
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
    const snapshot = buildJobSnapshot(job);
    expect(snapshot.result?.structuredContent?.array).toEqual({ size: 4, succeeded: 3, failed: 1 });
    expect(textOf(snapshot)).toContain("Array job of 4: 3 succeeded, 1 failed.");
  });

  it("ends a cancelled job at its stop, with the reason shortened and no result", () => {
    const reason =
      "jobtasks: cancelled via MCP tasks/cancel (queue arn:aws:batch:us-east-1:123456789012:job-queue/etl)";
    const snapshot = buildJobSnapshot(fixtureJob("describe-jobs-cancelled.json", { statusReason: reason }));
    expect(snapshot).toMatchObject({ status: "cancelled", rawStatus: "FAILED" });
    expect(snapshot.message).toBe("Cancelled: jobtasks: cancelled via MCP tasks/cancel (queue job-queue/etl)");
    expect(snapshot.result).toBeUndefined();
    expect(snapshot.updatedAt).toBe(new Date(1795000030000).toISOString());
  });

  it("gives a job Batch stopped itself a result with isError", () => {
    const snapshot = buildJobSnapshot(
      fixtureJob("describe-jobs-cancelled.json", { isCancelled: true, statusReason: "Dependent Job failed" }),
    );
    expect(snapshot.status).toBe("completed");
    expect(snapshot.result?.isError).toBe(true);
  });
});
