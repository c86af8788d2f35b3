import { describe, expect, it } from "vitest";
import { mapMemoryJobsStatus } from "./map-memory-jobs-status.js";

describe("mapMemoryJobsStatus", () => {
  it.each([
    ["running", { status: "working" }],
    ["waiting_for_approval", { status: "input_required" }],
    ["succeeded", { status: "completed", isError: false }],
    ["rejected", { status: "completed", isError: true }],
    ["cancelled", { status: "cancelled" }],
    ["paused_for_maintenance", { status: "working" }],
  ])("maps %s", (rawStatus, expected) => {
    expect(mapMemoryJobsStatus(rawStatus)).toEqual(expected);
  });
});
