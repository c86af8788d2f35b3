import { describe, expect, it } from "vitest";
import { stepLogLines, tailLines } from "./tail-step-log.js";
import { fixtureText } from "./test-support/github-fixtures.js";

const log = fixtureText("job-log-failure.txt");

describe("stepLogLines", () => {
  it("keeps only the lines stamped inside the step's window, without timestamps or endgroup markers", () => {
    const lines = stepLogLines(log, { startedAt: "2026-11-20T10:00:10Z", completedAt: "2026-11-20T10:04:05Z" });
    expect(lines[0]).toBe("##[group]Run npm test");
    expect(lines).not.toContain("##[endgroup]");
    expect(lines).not.toContain("Checking out the ref");
    expect(lines).not.toContain("Post job cleanup.");
    expect(lines.at(-1)).toBe("##[error]Process completed with exit code 1.");
  });

  it("falls back to the whole log when no stamp falls inside the window", () => {
    const lines = stepLogLines(log, { startedAt: "2030-01-01T00:00:00Z", completedAt: "2030-01-01T00:01:00Z" });
    expect(lines[0]).toBe("Current runner version: '2.329.0'");
    expect(lines.at(-1)).toBe("Cleaning up orphan processes");
  });

  it("strips colour codes", () => {
    const lines = stepLogLines("2026-11-20T10:00:00.0000000Z \u001b[31mFAIL\u001b[0m src/a.test.ts\n", { startedAt: null, completedAt: null });
    expect(lines).toEqual(["FAIL src/a.test.ts"]);
  });
});

describe("tailLines", () => {
  const lines = Array.from({ length: 100 }, (_, index) => `line ${index + 1}`);

  it("keeps the last lines within the line budget", () => {
    const tail = tailLines(lines, 3, 10_000);
    expect(tail).toEqual({ text: "line 98\nline 99\nline 100", truncated: true });
  });

  it("drops lines from the start until the byte budget holds", () => {
    const tail = tailLines(lines, 50, 20);
    expect(Buffer.byteLength(tail.text)).toBeLessThanOrEqual(20);
    expect(tail.text).toBe("line 99\nline 100");
    expect(tail.truncated).toBe(true);
  });

  it("cuts a single long line on a character boundary", () => {
    const tail = tailLines(["ééééééé end"], 5, 8);
    expect(Buffer.byteLength(tail.text)).toBeLessThanOrEqual(8);
    expect(tail.text.endsWith(" end")).toBe(true);
    expect(tail.text).not.toContain("\uFFFD");
  });

  it("reports no truncation when everything fits", () => {
    expect(tailLines(["a", "b"], 5, 100)).toEqual({ text: "a\nb", truncated: false });
  });
});
