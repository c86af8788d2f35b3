import { describe, expect, it } from "vitest";
import { stripTaskResultContent } from "./strip-task-result-content.js";

describe("stripTaskResultContent", () => {
  it("removes the empty content the SDK adds to a CreateTaskResult", () => {
    const message = {
      jsonrpc: "2.0",
      id: 1,
      result: { content: [], resultType: "task", taskId: "t", status: "working" },
    };
    expect(stripTaskResultContent(message)).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { resultType: "task", taskId: "t", status: "working" },
    });
  });

  it("leaves tool results, non-empty content and other messages alone", () => {
    const toolResult = { jsonrpc: "2.0", id: 1, result: { content: [], resultType: "complete" } };
    const odd = { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "x" }], resultType: "task" } };
    const notification = { jsonrpc: "2.0", method: "notifications/tasks", params: {} };
    for (const message of [toolResult, odd, notification]) expect(stripTaskResultContent(message)).toBe(message);
  });
});
