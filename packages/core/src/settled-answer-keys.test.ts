import { describe, expect, it } from "vitest";
import { settledAnswerKeys } from "./settled-answer-keys.js";

const responses = {
  approve: { action: "accept" },
  reject: { action: "decline" },
  dismissed: { action: "cancel" },
} as const;

describe("settledAnswerKeys", () => {
  it("without an outcome, counts every answer but a dismissed form (cancel) as settled", () => {
    expect(settledAnswerKeys(responses, undefined)).toEqual(["approve", "reject"]);
  });

  it("takes the adapter's leftOpen when it gives one, cancel included", () => {
    expect(settledAnswerKeys(responses, { leftOpen: ["reject"] })).toEqual(["approve", "dismissed"]);
    expect(settledAnswerKeys(responses, { leftOpen: [] })).toEqual(["approve", "reject", "dismissed"]);
  });

  it("reads an outcome of another shape as none", () => {
    expect(settledAnswerKeys(responses, { leftOpen: "reject" })).toEqual(["approve", "reject"]);
    expect(settledAnswerKeys(responses, null)).toEqual(["approve", "reject"]);
    expect(settledAnswerKeys(responses, {})).toEqual(["approve", "reject"]);
  });
});
