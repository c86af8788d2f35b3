import { describe, expect, it } from "vitest";
import { findInputRequestProblems, findSnapshotProblems } from "./snapshot-problems.js";

const formRequest = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: "Approve?",
    requestedSchema: { type: "object", properties: { approve: { type: "boolean" } }, required: ["approve"] },
  },
};

describe("findSnapshotProblems", () => {
  it.each([
    ["working", { status: "working", rawStatus: "running", message: "step 1/3" }],
    [
      "completed",
      {
        status: "completed",
        rawStatus: "succeeded",
        result: { content: [{ type: "text", text: "ok" }], isError: false },
      },
    ],
    ["failed", { status: "failed", rawStatus: "gone", error: { code: -32603, message: "gone" } }],
    ["input_required", { status: "input_required", rawStatus: "waiting", inputRequests: { "gate-1": formRequest } }],
    ["cancelled", { status: "cancelled", rawStatus: "cancelled", updatedAt: "2026-11-29T10:00:00.000Z" }],
  ])("accepts a well-formed %s snapshot", (_status, snapshot) => {
    expect(findSnapshotProblems(snapshot)).toEqual([]);
  });

  it.each([
    [null, "the snapshot is not an object"],
    [{ status: "done", rawStatus: "done" }, 'status "done" is not a task status'],
    [{ status: "working" }, "rawStatus is not a string"],
    [{ status: "working", rawStatus: "x", updatedAt: "yesterday" }, "updatedAt is not an ISO 8601 time"],
    [{ status: "working", rawStatus: "x", pollIntervalMs: -1 }, "pollIntervalMs is not a non-negative number"],
    [{ status: "working", rawStatus: "x", message: 3 }, "message is not a string"],
    [{ status: "completed", rawStatus: "x" }, "a completed snapshot has no result object"],
    [{ status: "completed", rawStatus: "x", result: { content: "ok" } }, "result.content is not an array"],
    [
      { status: "completed", rawStatus: "x", result: { content: [{ text: "ok" }] } },
      "result.content[0] has no string type",
    ],
    [
      { status: "completed", rawStatus: "x", result: { content: [], isError: "yes" } },
      "result.isError is not a boolean",
    ],
    [
      { status: "failed", rawStatus: "x", error: { message: "no code" } },
      "a failed snapshot has no error with an integer code and a message",
    ],
    [
      { status: "input_required", rawStatus: "x", inputRequests: {} },
      "an input_required snapshot has no inputRequests",
    ],
    [
      { status: "working", rawStatus: "x", extra: 10n },
      "the snapshot is not JSON-serialisable (Do not know how to serialize a BigInt)",
    ],
  ])("reports %#: %s", (snapshot, problem) => {
    expect(findSnapshotProblems(snapshot)).toContain(problem);
  });
});

describe("findInputRequestProblems", () => {
  it("accepts an elicitation/create form request", () => {
    expect(findInputRequestProblems("k", formRequest)).toEqual([]);
  });

  it("reports every fault of a malformed request", () => {
    const problems = findInputRequestProblems("k", {
      method: "sampling/createMessage",
      params: {
        mode: "url",
        message: "",
        requestedSchema: { type: "array", properties: { nested: { type: "object" } }, required: ["missing"] },
      },
    });
    expect(problems).toEqual([
      'inputRequests["k"].method is not "elicitation/create"',
      'inputRequests["k"].params.mode is not "form"',
      'inputRequests["k"].params.message is not a non-empty string',
      'inputRequests["k"].params.requestedSchema.type is not "object"',
      'inputRequests["k"].params.requestedSchema.properties.nested is not a primitive form field',
      'inputRequests["k"].params.requestedSchema.required must list property names',
    ]);
  });

  it("reports a request without params", () => {
    expect(findInputRequestProblems("k", { method: "elicitation/create" })).toEqual([
      'inputRequests["k"].params is not an object',
    ]);
  });
});
