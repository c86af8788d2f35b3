import { describe, expect, it } from "vitest";
import { renderProgressLine } from "./progress-line.js";

describe("renderProgressLine", () => {
  it("draws the bar from the task's progress when the server gives it, before the message's wording", () => {
    const line = renderProgressLine({
      status: "working",
      statusMessage: "compiling (step 1/2)",
      progress: { progress: 3, total: 4 },
      elapsedMs: 5_000,
      tick: 0,
    });
    expect(line).toContain("█".repeat(15) + "░".repeat(5) + " 75%");
  });

  it("falls back to the message's wording without a progress or without its total (a count of unknown end)", () => {
    const counted = { status: "working", statusMessage: "step 2/5", progress: { progress: 40 }, elapsedMs: 0, tick: 0 };
    expect(renderProgressLine(counted)).toContain(" 20%");
    expect(renderProgressLine({ status: "working", statusMessage: "step 2/5", elapsedMs: 0, tick: 0 })).toContain(
      " 20%",
    );
  });
});
