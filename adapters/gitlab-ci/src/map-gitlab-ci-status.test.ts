import { describe, expect, it } from "vitest";
import { mapGitlabCiStatus, type PipelinePhase } from "./map-gitlab-ci-status.js";

const table: Array<[string, PipelinePhase["phase"], boolean?]> = [
  ["created", "working"],
  ["waiting_for_resource", "working"],
  ["preparing", "working"],
  ["waiting_for_callback", "working"],
  ["pending", "working"],
  ["running", "working"],
  ["scheduled", "working"],
  ["canceling", "working"],
  ["manual", "manual"],
  ["success", "completed", false],
  ["skipped", "completed", false],
  ["failed", "completed", true],
  ["canceled", "cancelled"],
  // Made up: a status GitLab may add one day must never end a task.
  ["hibernating", "working"],
  ["", "working"],
];

describe("mapGitlabCiStatus", () => {
  it.each(table)("maps %s to %s", (status, phase, isError) => {
    const mapped = mapGitlabCiStatus(status);
    expect(mapped.phase).toBe(phase);
    if (isError !== undefined) expect(mapped).toMatchObject({ isError });
  });

  it("names an unknown status in its message", () => {
    expect(mapGitlabCiStatus("hibernating")).toEqual({
      phase: "working",
      message: expect.stringContaining("'hibernating'"),
    });
  });

  it("reports a requested cancel as progress, not as cancelled", () => {
    expect(mapGitlabCiStatus("canceling")).toEqual({
      phase: "working",
      message: expect.stringContaining("cancel requested"),
    });
  });
});
