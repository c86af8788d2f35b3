import { describe, expect, it } from "vitest";
import { TaskIdSealer, type TaskReference } from "./task-id.js";
import { MemoizedTaskIdOpener, type TaskIdOpener } from "./memoized-task-id-opener.js";

const sealer = new TaskIdSealer({ secret: "memoized-opener-test-secret-0123456789abcdef" });
const reference: TaskReference = {
  instance: "scripted",
  tool: "scripted_job",
  ref: { jobId: "1" },
  createdAt: 1_700_000_000_000,
};

/** The sealer, counting how often it is really asked. */
function countingSealer(): TaskIdOpener & { opens: number } {
  const counting = {
    opens: 0,
    open(taskId: string, principal: string) {
      counting.opens += 1;
      return sealer.open(taskId, principal);
    },
  };
  return counting;
}

describe("MemoizedTaskIdOpener", () => {
  it("opens a repeated id from memory, with the same reference the sealer gave", () => {
    const counting = countingSealer();
    const opener = new MemoizedTaskIdOpener(counting);
    const taskId = sealer.seal(reference, "alice");
    expect(opener.open(taskId, "alice")).toEqual(reference);
    expect(opener.open(taskId, "alice")).toEqual(reference);
    expect(counting.opens).toBe(1);
  });

  it("never opens an id for another principal, even once it is remembered for its own", () => {
    const counting = countingSealer();
    const opener = new MemoizedTaskIdOpener(counting);
    const taskId = sealer.seal(reference, "alice");
    expect(opener.open(taskId, "alice")).toBeDefined();
    expect(opener.open(taskId, "bob")).toBeUndefined();
    expect(opener.open(taskId, "bob")).toBeUndefined();
    // A refusal is not remembered: every forged or foreign id reaches the sealer.
    expect(counting.opens).toBe(3);
  });

  it("stays bounded: past its size the oldest ids are asked of the sealer again", () => {
    const counting = countingSealer();
    const opener = new MemoizedTaskIdOpener(counting, 2);
    const ids = ["1", "2", "3"].map((jobId) => sealer.seal({ ...reference, ref: { jobId } }, "alice"));
    for (const taskId of ids) opener.open(taskId, "alice");
    expect(counting.opens).toBe(3);
    opener.open(ids[2]!, "alice");
    expect(counting.opens).toBe(3);
    opener.open(ids[0]!, "alice");
    expect(counting.opens).toBe(4);
  });

  it("hands every caller the one object the opener gave", () => {
    const opener = new MemoizedTaskIdOpener(countingSealer());
    const taskId = sealer.seal(reference, "alice");
    expect(opener.open(taskId, "alice")).toBe(opener.open(taskId, "alice"));
  });
});
