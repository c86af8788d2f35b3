import { describe, expect, it } from "vitest";
import { type CallToolResult, type JobAdapterV1, type JobSnapshot, z } from "@jobtasks/core";
import { TaskIdSealer } from "./task-id.js";
import { type CreateTaskResult } from "./task-shape.js";
import { createSilentLogger } from "./logger.js";
import { TaskService } from "./task-service.js";

/** An adapter whose one tool starts a job that already has the given first snapshot. */
function adapterStartingAs(first: JobSnapshot | undefined) {
  const counts = { start: 0, getStatus: 0 };
  const adapter: JobAdapterV1<string> = {
    specificationVersion: "v1",
    kind: "instant",
    tools: [
      {
        name: "instant_job",
        description: "A job finished (or not) by the time its start returns.",
        inputSchema: z.object({}),
        synchronousWaitMs: 5_000,
        async doStart() {
          counts.start += 1;
          return first ? { ref: "job-1", snapshot: first } : { ref: "job-1" };
        },
      },
    ],
    async doGetStatus() {
      counts.getStatus += 1;
      return first ?? { status: "working", rawStatus: "running" };
    },
  };
  const service = new TaskService({
    adapters: [{ name: "instant", adapter }],
    sealer: new TaskIdSealer({ secret: "immediate-result-test-secret-0123456789" }),
    logger: createSilentLogger(),
    snapshotCacheMs: 0,
  });
  return { service, counts };
}

const caller = (tasksDeclared: boolean) => ({
  principal: "alice",
  signal: new AbortController().signal,
  tasksDeclared,
});
const finished: JobSnapshot = {
  status: "completed",
  rawStatus: "succeeded",
  result: { content: [{ type: "text", text: "Hello, World!" }] },
};

describe("the immediate-result shortcut", () => {
  it("answers a client with the extension with the plain result of a job finished at its start", async () => {
    const { service, counts } = adapterStartingAs(finished);
    const result = (await service.callTool("instant_job", {}, caller(true))) as CallToolResult & {
      resultType?: string;
      taskId?: string;
    };
    expect(result).toEqual(finished.result);
    expect(result.taskId).toBeUndefined();
    // Nothing to poll: the first snapshot was the last.
    expect(counts).toEqual({ start: 1, getStatus: 0 });
  });

  it("answers a client without the extension the same way, without waiting", async () => {
    const { service, counts } = adapterStartingAs(finished);
    expect(await service.callTool("instant_job", {}, caller(false))).toEqual(finished.result);
    expect(counts.getStatus).toBe(0);
  });

  it("keeps a tool error as the result: a job that ran and failed is still a result", async () => {
    const failedRun: JobSnapshot = {
      status: "completed",
      rawStatus: "failed",
      result: { content: [{ type: "text", text: "exit 1" }], isError: true },
    };
    const { service } = adapterStartingAs(failedRun);
    expect(await service.callTool("instant_job", {}, caller(true))).toEqual(failedRun.result);
  });

  it("still makes a task for a job that is working, or has no first snapshot", async () => {
    for (const first of [{ status: "working", rawStatus: "queued" } as JobSnapshot, undefined]) {
      const { service } = adapterStartingAs(first);
      const created = (await service.callTool("instant_job", {}, caller(true))) as CreateTaskResult;
      expect(created.resultType).toBe("task");
      expect((await service.getTask(created.taskId, caller(true))).status).toBe("working");
    }
  });

  it("does not shortcut a first snapshot that is failed or cancelled: those are tasks too", async () => {
    const failed: JobSnapshot = { status: "failed", rawStatus: "gone", error: { code: -32000, message: "gone" } };
    const { service } = adapterStartingAs(failed);
    const created = (await service.callTool("instant_job", {}, caller(true))) as CreateTaskResult;
    expect(created).toMatchObject({ resultType: "task", status: "failed" });
  });
});
