import { describe, expect, it } from "vitest";
import type { JobSnapshot } from "@jobtasks/core";
import { progressObserver, type ProgressNotification } from "./progress-notifications.js";

const working = (progress?: number, total?: number, message?: string): JobSnapshot => ({
  status: "working",
  rawStatus: "running",
  ...(message ? { message } : {}),
  ...(progress !== undefined ? { progress: { progress, ...(total !== undefined ? { total } : {}) } } : {}),
});

describe("progress notifications of a synchronous call", () => {
  it("sends each new progress value once, increasing only, with the total and the status message", async () => {
    const sent: ProgressNotification[] = [];
    const observe = progressObserver("token-1", async (notification) => void sent.push(notification));
    for (const snapshot of [
      working(),
      working(0, 3, "step 1/3"),
      working(0, 3, "step 1/3"),
      working(2, 3),
      working(1, 3),
      working(3, 3),
    ])
      await observe(snapshot);
    expect(sent.map((notification) => notification.params)).toEqual([
      { progressToken: "token-1", progress: 0, total: 3, message: "step 1/3" },
      { progressToken: "token-1", progress: 2, total: 3 },
      { progressToken: "token-1", progress: 3, total: 3 },
    ]);
    expect(sent.every((notification) => notification.method === "notifications/progress")).toBe(true);
  });

  it("does not fail the call when the client can no longer be told", async () => {
    const observe = progressObserver(7, async () => {
      throw new Error("stream closed");
    });
    await expect(observe(working(1))).resolves.toBeUndefined();
  });
});
