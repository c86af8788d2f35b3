import { describe, expect, it } from "vitest";
import { mapKubernetesStatus, type JobPhase } from "./map-kubernetes-status.js";
import { jobIn } from "./test-support/arrange-jobs.js";

const table: Array<[string, JobPhase["phase"], boolean?]> = [
  ["Pending", "working"],
  ["Running", "working"],
  ["Suspended", "working"],
  ["Suspended+approval", "approval"],
  ["FailureTarget", "working"],
  ["SuccessCriteriaMet", "working"],
  ["CancelRequested", "working"],
  ["Cancelled", "cancelled"],
  ["Complete", "completed", false],
  ["Failed", "completed", true],
  ["Rejected", "completed", true],
  // Made up: a condition Kubernetes may add one day must never end a task.
  ["Hibernating", "working"],
];

function job(rawStatus: string) {
  const state = jobIn(rawStatus);
  return {
    metadata: { name: "j", annotations: state.annotations ?? {} },
    spec: state.spec,
    status: state.status,
  } as never;
}

describe("mapKubernetesStatus", () => {
  it.each(table)("maps %s to %s", (rawStatus, phase, isError) => {
    const mapped = mapKubernetesStatus(job(rawStatus));
    expect(mapped.phase).toBe(phase);
    if (isError !== undefined) expect(mapped).toMatchObject({ isError });
  });

  it("keeps an unknown condition's name as the raw status and in the message", () => {
    expect(mapKubernetesStatus(job("Hibernating"))).toMatchObject({
      rawStatus: "Hibernating",
      message: expect.stringContaining("'Hibernating'"),
    });
  });

  it("names the reason of a failure, and reports FailureTarget as not finished yet", () => {
    expect(mapKubernetesStatus(job("Failed"))).toMatchObject({ reason: "BackoffLimitExceeded" });
    expect(mapKubernetesStatus(job("FailureTarget"))).toMatchObject({
      phase: "working",
      message: expect.stringContaining("BackoffLimitExceeded"),
    });
  });

  it("reports a requested cancel as progress while pods are active, cancelled once none is", () => {
    expect(mapKubernetesStatus(job("CancelRequested"))).toMatchObject({
      phase: "working",
      message: expect.stringContaining("cancel requested"),
    });
  });

  it("shows counts and an Indexed job's completed indexes as progress", () => {
    const mapped = mapKubernetesStatus({
      metadata: { name: "j" },
      spec: { completions: 8, completionMode: "Indexed", backoffLimit: 4, template: {} as never },
      status: { active: 3, ready: 3, succeeded: 4, failed: 1, completedIndexes: "0-2,5" },
    });
    expect(mapped).toEqual({
      phase: "working",
      rawStatus: "Running",
      message: "running: 3 active (3 ready), 4/8 succeeded, 1 failed of backoffLimit 4, indexes 0-2,5 done",
    });
  });

  it("asks for the pods of a running Job only when some of its pods are not ready", () => {
    const running = (ready: number) =>
      mapKubernetesStatus({ metadata: {}, spec: { template: {} as never }, status: { active: 2, ready } });
    expect(running(2)).not.toHaveProperty("needsPods");
    expect(running(1)).toMatchObject({ needsPods: true });
  });
});
