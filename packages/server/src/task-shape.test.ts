import { describe, expect, it } from "vitest";
import type { JobSnapshot } from "@jobtasks/core";
import { toCreateTaskResult, toDetailedTask, type TaskMetadata } from "./task-shape.js";

const metadata: TaskMetadata = {
  taskId: "jt1.key.abc",
  createdAt: Date.UTC(2026, 10, 29, 10),
  ttlMs: 86_400_000,
  pollIntervalMs: 2000,
  now: Date.UTC(2026, 10, 29, 11),
};
const approval = {
  method: "elicitation/create" as const,
  params: {
    mode: "form" as const,
    message: "Approve?",
    requestedSchema: { type: "object" as const, properties: { approve: { type: "boolean" } } },
  },
};

describe("toDetailedTask", () => {
  it("carries the Task fields, with ISO dates and the upstream's own update time", () => {
    const task = toDetailedTask(
      { status: "working", rawStatus: "in_progress", message: "step 2/5: test", updatedAt: "2026-11-29T10:30:00.000Z" },
      metadata,
    );
    expect(task).toEqual({
      taskId: "jt1.key.abc",
      status: "working",
      statusMessage: "step 2/5: test",
      createdAt: "2026-11-29T10:00:00.000Z",
      lastUpdatedAt: "2026-11-29T10:30:00.000Z",
      ttlMs: 86_400_000,
      pollIntervalMs: 2000,
    });
  });

  it("lets the snapshot slow polling down, and drops polling hints once the task is terminal", () => {
    expect(
      toDetailedTask({ status: "working", rawStatus: "queued", pollIntervalMs: 30_000.4 }, metadata).pollIntervalMs,
    ).toBe(30_000);
    const done = toDetailedTask({ status: "cancelled", rawStatus: "cancelled" }, metadata);
    expect(done).not.toHaveProperty("pollIntervalMs");
    expect(done.lastUpdatedAt).toBe("2026-11-29T11:00:00.000Z");
  });

  it("never dates lastUpdatedAt before the task was created, whatever the adapter says", () => {
    // A run watched an hour after it finished: the upstream's last change is older than the task.
    const finishedEarlier = {
      status: "completed" as const,
      rawStatus: "completed/success",
      result: { content: [] },
      updatedAt: "2026-11-29T09:00:00Z",
    };
    expect(toDetailedTask(finishedEarlier, metadata).lastUpdatedAt).toBe("2026-11-29T10:00:00.000Z");
    expect(toCreateTaskResult(finishedEarlier, metadata).lastUpdatedAt).toBe("2026-11-29T10:00:00.000Z");
    // A replica whose clock runs behind the one that created the task, with no upstream time.
    expect(
      toDetailedTask({ status: "working", rawStatus: "queued" }, { ...metadata, now: metadata.createdAt - 5_000 })
        .lastUpdatedAt,
    ).toBe("2026-11-29T10:00:00.000Z");
    // A time that cannot be read counts as none.
    expect(
      toDetailedTask({ status: "working", rawStatus: "queued", updatedAt: "yesterday" }, metadata).lastUpdatedAt,
    ).toBe("2026-11-29T11:00:00.000Z");
    // A later upstream time is passed on as the upstream wrote it.
    expect(
      toDetailedTask({ status: "working", rawStatus: "queued", updatedAt: "2026-11-29T10:00:01Z" }, metadata)
        .lastUpdatedAt,
    ).toBe("2026-11-29T10:00:01Z");
  });

  it("puts resultType complete inside a completed task's result", () => {
    const result = { content: [{ type: "text", text: "ok" }], isError: true };
    expect(toDetailedTask({ status: "completed", rawStatus: "failure", result }, metadata)).toMatchObject({
      status: "completed",
      result: { content: [{ type: "text", text: "ok" }], isError: true, resultType: "complete" },
    });
  });

  it("mends a completed snapshot without a result into an empty tool result", () => {
    expect(toDetailedTask({ status: "completed", rawStatus: "success" }, metadata)).toMatchObject({
      result: { content: [], resultType: "complete" },
    });
  });

  it("gives a failed task a JSON-RPC error, from the snapshot or from its message", () => {
    expect(
      toDetailedTask(
        { status: "failed", rawStatus: "gone", error: { code: -32603, message: "run deleted" } },
        metadata,
      ),
    ).toMatchObject({
      status: "failed",
      error: { code: -32603, message: "run deleted" },
    });
    expect(toDetailedTask({ status: "failed", rawStatus: "gone", message: "access lost" }, metadata)).toMatchObject({
      error: { code: -32603, message: "access lost" },
      statusMessage: "access lost",
    });
  });

  it("shows input requests only with input_required, and treats input_required without any as working", () => {
    expect(
      toDetailedTask(
        { status: "input_required", rawStatus: "waiting", inputRequests: { "deploy-1": approval } },
        metadata,
      ),
    ).toMatchObject({
      status: "input_required",
      inputRequests: { "deploy-1": approval },
    });
    for (const inputRequests of [undefined, {}]) {
      const snapshot: JobSnapshot = {
        status: "input_required",
        rawStatus: "waiting",
        ...(inputRequests ? { inputRequests } : {}),
      };
      const task = toDetailedTask(snapshot, metadata);
      expect(task.status).toBe("working");
      expect(task).not.toHaveProperty("inputRequests");
    }
    expect(
      toDetailedTask({ status: "working", rawStatus: "x", inputRequests: { a: approval } }, metadata),
    ).not.toHaveProperty("inputRequests");
  });
});

describe("toCreateTaskResult", () => {
  it("shows the same status tasks/get would, for an input_required without requests or an unknown status", () => {
    expect(toCreateTaskResult({ status: "input_required", rawStatus: "waiting" }, metadata).status).toBe("working");
    expect(toCreateTaskResult({ status: "queued" as never, rawStatus: "queued" }, metadata).status).toBe("working");
    expect(toDetailedTask({ status: "queued" as never, rawStatus: "queued" }, metadata).status).toBe("working");
  });

  it("is the Task fields plus resultType task, never a payload", () => {
    const created = toCreateTaskResult(
      { status: "completed", rawStatus: "success", result: { content: [] } },
      { ...metadata, ttlMs: null },
    );
    expect(created).toEqual({
      taskId: "jt1.key.abc",
      status: "completed",
      createdAt: "2026-11-29T10:00:00.000Z",
      lastUpdatedAt: "2026-11-29T11:00:00.000Z",
      ttlMs: null,
      resultType: "task",
    });
  });
});
