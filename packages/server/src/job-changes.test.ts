import { describe, expect, it } from "vitest";
import { JobChanges } from "./job-changes.js";

describe("JobChanges", () => {
  it("wakes every wait on the job, and only on that job", async () => {
    const changes = new JobChanges();
    const signal = new AbortController().signal;
    const woken: string[] = [];
    void changes.next("a", signal).then(() => woken.push("a1"));
    void changes.next("a", signal).then(() => woken.push("a2"));
    void changes.next("b", signal).then(() => woken.push("b"));
    expect(changes.notify("a")).toBe(2);
    await Promise.resolve();
    expect(woken).toEqual(["a1", "a2"]);
    expect(changes.size).toBe(1);
  });

  it("forgets a wait whose signal aborted", () => {
    const changes = new JobChanges();
    const controller = new AbortController();
    void changes.next("a", controller.signal);
    controller.abort();
    expect(changes.size).toBe(0);
    expect(changes.notify("a")).toBe(0);
  });
});
