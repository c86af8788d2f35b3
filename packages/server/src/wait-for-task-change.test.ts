import { describe, expect, it } from "vitest";
import type { DetailedTask } from "./task-shape.js";
import { waitForTaskChange } from "./wait-for-task-change.js";

const base = {
  taskId: "jt1.test",
  createdAt: "2026-12-01T09:00:00.000Z",
  lastUpdatedAt: "2026-12-01T09:00:00.000Z",
  ttlMs: null,
  pollIntervalMs: 10,
};
const working = (statusMessage: string): DetailedTask => ({ ...base, status: "working", statusMessage });
const completed: DetailedTask = {
  ...base,
  status: "completed",
  result: { content: [{ type: "text", text: "done" }], resultType: "complete" },
};
const asking: DetailedTask = {
  ...base,
  status: "input_required",
  inputRequests: {
    q: {
      method: "elicitation/create",
      params: { mode: "form", message: "ok?", requestedSchema: { type: "object", properties: {} } },
    },
  },
};

/** A read that answers the given tasks in order, then keeps answering the last one; counts its calls. */
function scriptedReads(tasks: DetailedTask[], onRead?: (count: number) => void) {
  const reads = { count: 0 };
  const read = async () => {
    reads.count += 1;
    onRead?.(reads.count);
    return tasks[Math.min(reads.count, tasks.length) - 1]!;
  };
  return { reads, read };
}

const forever = 40_000;

describe("waitForTaskChange", () => {
  it("returns as soon as the status changes, passing message-only changes on without returning", async () => {
    const { reads, read } = scriptedReads([
      working("step 1/3"),
      working("step 1/3"),
      working("step 2/3"),
      asking,
      completed,
    ]);
    const messages: string[] = [];
    const task = await waitForTaskChange({
      read,
      waitMs: forever,
      signal: new AbortController().signal,
      defaultPollIntervalMs: 10,
      onMessage: (message) => messages.push(message),
    });
    expect(task.status).toBe("input_required");
    expect(reads.count).toBe(4);
    expect(messages).toEqual(["step 2/3"]);
  });

  it("returns on a terminal status", async () => {
    const { reads, read } = scriptedReads([working("running"), completed]);
    expect(
      (
        await waitForTaskChange({
          read,
          waitMs: forever,
          signal: new AbortController().signal,
          defaultPollIntervalMs: 10,
        })
      ).status,
    ).toBe("completed");
    expect(reads.count).toBe(2);
  });

  it("answers at once, with one read, for a task already ended or already asking", async () => {
    for (const settled of [completed, asking]) {
      const { reads, read } = scriptedReads([settled]);
      expect(
        await waitForTaskChange({
          read,
          waitMs: forever,
          signal: new AbortController().signal,
          defaultPollIntervalMs: 10,
        }),
      ).toBe(settled);
      expect(reads.count).toBe(1);
    }
  });

  it("returns the working task when the wait runs out, not before", async () => {
    const { reads, read } = scriptedReads([working("running")]);
    const started = Date.now();
    const task = await waitForTaskChange({
      read,
      waitMs: 120,
      signal: new AbortController().signal,
      defaultPollIntervalMs: 10,
    });
    expect(task.status).toBe("working");
    expect(Date.now() - started).toBeGreaterThanOrEqual(120);
    expect(reads.count).toBeGreaterThan(1);
  });

  it("reads once and returns with a wait of 0", async () => {
    const { reads, read } = scriptedReads([working("running")]);
    expect(
      (await waitForTaskChange({ read, waitMs: 0, signal: new AbortController().signal, defaultPollIntervalMs: 10 }))
        .status,
    ).toBe("working");
    expect(reads.count).toBe(1);
  });

  it("spaces reads by the task's pollIntervalMs", async () => {
    const times: number[] = [];
    const { read } = scriptedReads([{ ...working("running"), pollIntervalMs: 60 }], () => times.push(Date.now()));
    await waitForTaskChange({ read, waitMs: 200, signal: new AbortController().signal, defaultPollIntervalMs: 10 });
    for (let index = 1; index < times.length - 1; index += 1)
      expect(times[index]! - times[index - 1]!).toBeGreaterThanOrEqual(55);
  });

  it("makes the look on the deadline its last, even when a timer fires a millisecond early", async () => {
    // Node's timers may end up to a millisecond before Date.now() says they should: the pause cut to the
    // deadline then leaves 1 ms "remaining", which must not buy one more read right after the last look.
    let clock = 0;
    const times: number[] = [];
    const { read } = scriptedReads([{ ...working("running"), pollIntervalMs: 60 }], () => times.push(clock));
    await waitForTaskChange({
      read,
      waitMs: 200,
      slowUpstreamAnswerMs: 100,
      signal: new AbortController().signal,
      defaultPollIntervalMs: 10,
      now: () => clock,
      sleep: async (milliseconds) => {
        clock += milliseconds > 1 ? milliseconds - 1 : milliseconds;
      },
    });
    expect(times.length).toBeGreaterThanOrEqual(3);
    const gaps = times.slice(1).map((time, index) => time - times[index]!);
    // Every gap but the last is a full interval (less the early millisecond); only the last may be shorter.
    for (const gap of gaps.slice(0, -1)) expect(gap).toBeGreaterThanOrEqual(59);
    expect(times.at(-1)).toBeLessThanOrEqual(200);
  });

  it("stops at once when the connection closes, with no further read", async () => {
    const controller = new AbortController();
    const { reads, read } = scriptedReads([working("running")], (count) => {
      if (count === 2) controller.abort(new Error("connection closed"));
    });
    await expect(
      waitForTaskChange({ read, waitMs: forever, signal: controller.signal, defaultPollIntervalMs: 10 }),
    ).rejects.toThrow();
    expect(reads.count).toBe(2);
  });
});
