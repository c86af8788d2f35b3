import { describe, expect, it } from "vitest";
import { readApprovalDecision } from "./demo-approval-request.js";

describe("readApprovalDecision", () => {
  it.each([
    [{ action: "accept", content: { approve: true } }, { approve: true }],
    [
      { action: "accept", content: { approve: true, comment: "ship it" } },
      { approve: true, comment: "ship it" },
    ],
    [
      { action: "accept", content: { approve: false, comment: "not today" } },
      { approve: false, comment: "not today" },
    ],
    // An unclear answer never deploys.
    [{ action: "accept", content: { approve: "true" } }, { approve: false }],
    [{ action: "accept" }, { approve: false }],
    [{ action: "decline" }, { approve: false, comment: "The approval request was declined in the client" }],
    [{ action: "cancel" }, { approve: false, comment: "The approval request was dismissed in the client" }],
    [
      { action: "decline", content: { comment: "wrong branch" } },
      { approve: false, comment: "wrong branch" },
    ],
  ] as const)("reads %j", (response, decision) => {
    expect(readApprovalDecision(response as never)).toEqual(decision);
  });
});
