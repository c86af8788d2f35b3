import { describe, expect, it } from "vitest";
import { normalizeGithubId, runRefSchema } from "./run-ref.js";

// The schema the server holds every ref of this adapter to (through-server cases: test/github-actions-ref-schema.test.ts).
describe("runRefSchema", () => {
  const run = { owner: "octo-org", repo: "octo-app.github.io", attempt: 3 };

  it("accepts a run id as GitHub's ids are normalised: a safe integer, or the decimal string of a larger int64", () => {
    for (const id of [9182799001, "9223372036854775807", 2n ** 63n - 1n]) {
      const ref = { ...run, runId: normalizeGithubId(id) };
      expect(runRefSchema.parse(ref)).toEqual(ref);
    }
  });

  it("refuses a run id past int64's digits, and an unsafe integer that normalizeGithubId never leaves a number", () => {
    expect(runRefSchema.safeParse({ ...run, runId: "1".repeat(21) }).success).toBe(false);
    expect(runRefSchema.safeParse({ ...run, runId: Number.MAX_SAFE_INTEGER + 2 }).success).toBe(false);
  });
});
