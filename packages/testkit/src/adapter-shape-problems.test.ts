import { z } from "@jobtasks/core";
import { describe, expect, it } from "vitest";
import { findAdapterShapeProblems } from "./adapter-shape-problems.js";
import { createFakeCi, fakeCiAdapter } from "./test-support/fake-ci-adapter.js";

const tool = (overrides: Record<string, unknown> = {}) => ({
  name: "run_job",
  description: "Run a job.",
  inputSchema: z.object({ name: z.string() }),
  doStart: async () => ({ ref: {} }),
  ...overrides,
});
const adapter = (overrides: Record<string, unknown> = {}) => ({
  specificationVersion: "v1",
  kind: "example",
  tools: [tool()],
  doGetStatus: async () => ({ status: "working", rawStatus: "x" }),
  ...overrides,
});

describe("findAdapterShapeProblems", () => {
  it("accepts a well-formed adapter", () => {
    expect(findAdapterShapeProblems(adapter())).toEqual([]);
    expect(
      findAdapterShapeProblems(adapter({ refSchema: z.object({ id: z.string() }), secrets: ["token-0123456789"] })),
    ).toEqual([]);
    expect(findAdapterShapeProblems(adapter({ secrets: () => ["token-0123456789"] }))).toEqual([]);
    expect(findAdapterShapeProblems(fakeCiAdapter({ ci: createFakeCi("t"), token: "t" }))).toEqual([]);
  });

  it.each([
    [{ specificationVersion: "v2" }, 'specificationVersion is not "v1"'],
    [{ kind: "" }, "kind is not a non-empty string"],
    [{ tools: [] }, "the adapter offers no tools"],
    [{ doGetStatus: undefined }, "doGetStatus is not a function"],
    [{ doCancel: "yes" }, "doCancel is neither absent nor a function"],
    [{ pollIntervalMs: 0 }, "pollIntervalMs is not a positive number"],
    [{ retentionMs: -5 }, "retentionMs is neither null nor a positive number"],
    [{ refSchema: { type: "object" } }, "refSchema is neither absent nor a zod schema"],
    [{ secrets: "token" }, "secrets is neither absent, an array of strings, nor a function"],
    [{ secrets: ["token", 7] }, "secrets is neither absent, an array of strings, nor a function"],
    [{ tools: [tool(), tool()] }, "tools[1] (run_job).name is used by another tool"],
    [
      { tools: [tool({ name: "run job!" })] },
      "tools[0] (run job!).name is not a valid MCP tool name (1-128 of A-Z a-z 0-9 _ - .)",
    ],
    [{ tools: [tool({ description: " " })] }, "tools[0] (run_job).description is empty"],
    [{ tools: [tool({ inputSchema: { type: "object" } })] }, "tools[0] (run_job).inputSchema is not a zod schema"],
    [
      { tools: [tool({ inputSchema: z.string() })] },
      'tools[0] (run_job).inputSchema does not describe an object (JSON Schema type "string")',
    ],
    [
      { tools: [tool({ outputSchema: z.array(z.string()) })] },
      'tools[0] (run_job).outputSchema does not describe an object (JSON Schema type "array")',
    ],
    [{ tools: [tool({ doStart: undefined })] }, "tools[0] (run_job).doStart is not a function"],
  ])("reports %j", (overrides, problem) => {
    expect(findAdapterShapeProblems(adapter(overrides))).toContain(problem);
  });
});
