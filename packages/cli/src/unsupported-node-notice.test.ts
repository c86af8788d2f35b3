import { describe, expect, it } from "vitest";
import { unsupportedNodeNotice } from "./unsupported-node-notice.js";

describe("the notice on a Node out of support", () => {
  it("is one line naming the Node and the ones to use, on Node 20", () => {
    expect(unsupportedNodeNotice("20.20.2")).toBe(
      "jobtasks: Node 20.20.2 is out of support; jobtasks runs on it, slower to start. Use Node 22 or 24.\n",
    );
  });

  it("is nothing on Node 22 and 24", () => {
    expect(unsupportedNodeNotice("22.1.0")).toBeUndefined();
    expect(unsupportedNodeNotice("22.23.5")).toBeUndefined();
    expect(unsupportedNodeNotice("24.22.3")).toBeUndefined();
  });
});
