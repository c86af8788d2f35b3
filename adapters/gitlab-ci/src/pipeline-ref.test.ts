import { describe, expect, it } from "vitest";
import { createMockGitlab, createTestAdapter, project } from "./test-support/mock-gitlab.js";

// The server checks every ref it opens from a task id against the adapter's refSchema (adapter-ref.ts).
const refSchema = createTestAdapter(createMockGitlab()).refSchema;

describe("the adapter's refSchema", () => {
  it("is declared, and reads every shape of ref the adapter has ever sealed as it was", () => {
    expect(refSchema).toBeDefined();
    expect(refSchema?.parse({ project, pipelineId: 1284711 })).toEqual({ project, pipelineId: 1284711 });
    expect(refSchema?.parse({ project: "278964", pipelineId: 1, retriedAfterJobId: 0 })).toEqual({
      project: "278964",
      pipelineId: 1,
      retriedAfterJobId: 0,
    });
    expect(refSchema?.parse({ project, pipelineId: 1, jobsUpTo: 9002 })).toEqual({
      project,
      pipelineId: 1,
      jobsUpTo: 9002,
    });
    expect(refSchema?.parse({ project, pipelineId: 1, retriedAfterJobId: 9002, jobsUpTo: 9004 })).toEqual({
      project,
      pipelineId: 1,
      retriedAfterJobId: 9002,
      jobsUpTo: 9004,
    });
  });

  it.each([
    ["another adapter's ref", { jobId: "a1b2" }],
    ["an empty project", { project: "", pipelineId: 1 }],
    ["a pipeline id that is not a positive whole number", { project, pipelineId: 0 }],
    ["a string pipeline id", { project, pipelineId: "1284711" }],
    ["a negative watermark", { project, pipelineId: 1, retriedAfterJobId: -1 }],
    ["a watermark given as undefined", { project, pipelineId: 1, retriedAfterJobId: undefined }],
    ["a run pinned at no job", { project, pipelineId: 1, jobsUpTo: 0 }],
    ["an unknown key", { project, pipelineId: 1, attempt: 2 }],
    ["no object at all", "acme/shop#1284711"],
  ])("refuses %s", (_, ref) => {
    expect(refSchema?.safeParse(ref).success).toBe(false);
  });
});
