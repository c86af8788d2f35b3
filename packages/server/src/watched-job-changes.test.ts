import { describe, expect, it } from "vitest";
import { type JobAdapterV1, type JobEventV1, type JobSnapshot, type JobTool, z } from "@jobtasks/core";
import { TaskIdSealer } from "./task-id.js";
import { createSilentLogger } from "./logger.js";
import { TaskService, type CallerContext } from "./task-service.js";
import type { CreateTaskResult } from "./task-shape.js";

/**
 * An adapter that watches its upstream itself (watchJobChanges) tells the server of a change at once: the
 * cached snapshot goes, waits wake, and the next read asks the adapter, long before the cache window ends.
 * Such a change is not a webhook delivery: the instance's jobs keep the ordinary window afterwards.
 */

type Ref = { id: string };

function setup() {
  const clock = { now: Date.parse("2026-12-02T10:00:00Z") };
  let status: JobSnapshot = { status: "working", rawStatus: "running", message: "running" };
  const calls = { getStatus: 0 };
  let report: ((change: JobEventV1<Ref>) => void) | undefined;
  const tool: JobTool<Ref, Record<string, never>> = {
    name: "run_job",
    description: "Runs job j-1.",
    inputSchema: z.strictObject({}),
    async doStart() {
      return { ref: { id: "j-1" }, snapshot: status };
    },
  };
  const adapter: JobAdapterV1<Ref> = {
    specificationVersion: "v1",
    kind: "watched",
    tools: [tool],
    refSchema: z.strictObject({ id: z.string() }),
    retentionMs: null,
    async doGetStatus() {
      calls.getStatus += 1;
      return structuredClone(status);
    },
    watchJobChanges(reportChange) {
      report = reportChange;
    },
  };
  const service = new TaskService({
    adapters: [{ name: "cluster", adapter }],
    sealer: new TaskIdSealer({ secret: "watched-changes-test-secret-0123456789abcdef" }),
    logger: createSilentLogger(),
    snapshotCacheMs: 60_000,
    eventSnapshotCacheMs: 10 * 60_000,
    now: () => clock.now,
  });
  const change = (next: JobSnapshot) => {
    status = next;
    report!({ ref: { id: "j-1" } });
  };
  return { service, calls, change, clock, reported: () => report !== undefined };
}

const caller: CallerContext & { tasksDeclared: boolean } = {
  principal: "alice",
  signal: new AbortController().signal,
  tasksDeclared: true,
};

describe("changes an adapter watches itself", () => {
  it("are asked for once, as the service starts", () => {
    expect(setup().reported()).toBe(true);
  });

  it("drop the cached snapshot at once, so the next read shows the change within the cache window", async () => {
    const { service, calls, change } = setup();
    const { taskId } = (await service.callTool("run_job", {}, caller)) as CreateTaskResult;
    expect((await service.getTask(taskId, caller)).status).toBe("working");
    const readsBefore = calls.getStatus;
    // Without the report, the 60 s cache would answer "working" for a minute.
    change({ status: "completed", rawStatus: "succeeded", result: { content: [{ type: "text", text: "done" }] } });
    expect((await service.getTask(taskId, caller)).status).toBe("completed");
    expect(calls.getStatus).toBe(readsBefore + 1);
  });

  it("wake a wait on the job", async () => {
    const { service, change } = setup();
    const { taskId } = (await service.callTool("run_job", {}, caller)) as CreateTaskResult;
    const waiting = new AbortController();
    let woken = false;
    const wake = service.whenChanged(taskId, caller.principal, waiting.signal).then(() => (woken = true));
    change({ status: "working", rawStatus: "running", message: "2 of 3 pods done" });
    await wake;
    expect(woken).toBe(true);
    waiting.abort();
  });

  it("are not deliveries: the instance's jobs keep the ordinary cache window afterwards", async () => {
    const { service, calls, change, clock } = setup();
    const { taskId } = (await service.callTool("run_job", {}, caller)) as CreateTaskResult;
    change({ status: "working", rawStatus: "running", message: "step 2" });
    // A read that began by the event's moment may predate it, and is not kept: this one begins after.
    clock.now += 1;
    await service.getTask(taskId, caller);
    const reads = calls.getStatus;
    // Past snapshotCacheMs, within eventSnapshotCacheMs: an instance whose deliveries arrive would still be
    // answered from its cache; this one is read again, as without events.
    clock.now += 2 * 60_000;
    await service.getTask(taskId, caller);
    expect(calls.getStatus).toBe(reads + 1);
  });
});
