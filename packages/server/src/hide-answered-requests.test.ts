import { describe, expect, it } from "vitest";
import type { JobSnapshot } from "@jobtasks/core";
import { answersSentMessage, hideAnsweredRequests } from "./hide-answered-requests.js";

const request = {
  method: "elicitation/create",
  params: { mode: "form", message: "Approve?", requestedSchema: { type: "object", properties: {} } },
} as const;

const waiting: JobSnapshot = {
  status: "input_required",
  rawStatus: "waiting",
  message: "waiting for approval",
  inputRequests: { first: request, second: request },
};

describe("hideAnsweredRequests", () => {
  it("leaves out the answered questions and keeps the others", () => {
    expect(hideAnsweredRequests(waiting, new Set(["first"]))).toEqual({
      ...waiting,
      inputRequests: { second: request },
    });
  });

  it("makes the task working, saying the answer was sent, when every question was answered", () => {
    expect(hideAnsweredRequests(waiting, new Set(["first", "second"]))).toEqual({
      status: "working",
      rawStatus: "waiting",
      message: answersSentMessage,
    });
  });

  it("changes nothing without answered keys among the questions, or for a job not waiting for input", () => {
    expect(hideAnsweredRequests(waiting, new Set(["other"]))).toBe(waiting);
    const running: JobSnapshot = { status: "working", rawStatus: "running" };
    expect(hideAnsweredRequests(running, new Set(["first"]))).toBe(running);
  });
});
