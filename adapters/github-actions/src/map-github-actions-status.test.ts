import { describe, expect, it } from "vitest";
import { mapGithubActionsStatus, rawRunStatus } from "./map-github-actions-status.js";

describe("mapGithubActionsStatus", () => {
  it.each([
    ["requested", null, { phase: "working", message: "requested: GitHub is preparing the run" }],
    ["queued", null, { phase: "working", message: "queued" }],
    ["pending", null, { phase: "working", message: "waiting for concurrency group" }],
    ["in_progress", null, { phase: "working", message: "in progress" }],
    ["waiting", null, { phase: "waiting" }],
    ["completed", "success", { phase: "completed", isError: false }],
    ["completed", "neutral", { phase: "completed", isError: false }],
    ["completed", "skipped", { phase: "completed", isError: false }],
    ["completed", "failure", { phase: "completed", isError: true }],
    ["completed", "timed_out", { phase: "completed", isError: true }],
    ["completed", "startup_failure", { phase: "completed", isError: true }],
    ["completed", "action_required", { phase: "completed", isError: true }],
    ["completed", "stale", { phase: "completed", isError: true }],
    ["completed", "cancelled", { phase: "cancelled" }],
  ])("maps %s/%s", (status, conclusion, expected) => {
    expect(mapGithubActionsStatus(status, conclusion)).toEqual(expected);
  });

  it("keeps a status GitHub may add tomorrow non-terminal, naming it", () => {
    const phase = mapGithubActionsStatus("hibernating", null);
    expect(phase.phase).toBe("working");
    expect(phase.phase === "working" && phase.message).toContain("'hibernating'");
  });

  it("keeps an unknown conclusion of a completed run non-terminal, naming it", () => {
    const phase = mapGithubActionsStatus("completed", "partially_succeeded");
    expect(phase.phase).toBe("working");
    expect(phase.phase === "working" && phase.message).toContain("'partially_succeeded'");
  });

  it("keeps a completed run without a conclusion non-terminal", () => {
    expect(mapGithubActionsStatus("completed", null).phase).toBe("working");
    expect(mapGithubActionsStatus(null, null).phase).toBe("working");
  });

  it("reports the raw value with the conclusion when there is one", () => {
    expect(rawRunStatus("completed", "failure")).toBe("completed/failure");
    expect(rawRunStatus("in_progress", null)).toBe("in_progress");
  });
});
