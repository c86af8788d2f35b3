import { describe, expect, it } from "vitest";
import { type ElicitationResponse, type JobAdapterV1, type JobSnapshot, type JobTool, z } from "@jobtasks/core";
import { TaskIdSealer } from "./task-id.js";
import { createSilentLogger } from "./logger.js";
import { TaskService, type CallerContext } from "./task-service.js";
import type { CreateTaskResult } from "./task-shape.js";

/**
 * The snapshot cache and the answer ledger key on one job identity, taken from the ref as the adapter's
 * refSchema reads it: a job is one job whatever spelling its task id sealed (members in another order, a
 * shape an older release sealed that the schema completes).
 */

type AttemptRef = { jobId: string; attempt: number };

/** Today's ref is `{ jobId, attempt }`; an older release sealed `{ jobId }`, which means attempt 1. */
const attemptRefSchema: z.ZodType<AttemptRef> = z.union([
  z.strictObject({ jobId: z.string(), attempt: z.int().positive() }),
  z.strictObject({ jobId: z.string() }).transform((ref) => ({ ...ref, attempt: 1 })),
]);

const approval: JobSnapshot = {
  status: "input_required",
  rawStatus: "waiting",
  inputRequests: {
    "approve-j-1": {
      method: "elicitation/create",
      params: {
        mode: "form",
        message: "Deploy?",
        requestedSchema: { type: "object", properties: { approve: { type: "boolean" } }, required: ["approve"] },
      },
    },
  },
};

/** One job, j-1, that keeps asking (an upstream whose status lags behind its answer endpoint). */
function setup() {
  const calls = { getStatus: 0, respond: [] as Array<Record<string, ElicitationResponse>> };
  const tool: JobTool<AttemptRef, { spelling: "today" | "reordered" | "older release" }> = {
    name: "follow_job",
    description: "Follows job j-1, sealing its ref in the spelling asked for.",
    inputSchema: z.strictObject({ spelling: z.enum(["today", "reordered", "older release"]) }),
    async doStart(input) {
      if (input.spelling === "older release") return { ref: { jobId: "j-1" } as AttemptRef, snapshot: approval };
      if (input.spelling === "reordered") return { ref: { attempt: 1, jobId: "j-1" }, snapshot: approval };
      return { ref: { jobId: "j-1", attempt: 1 }, snapshot: approval };
    },
  };
  const adapter: JobAdapterV1<AttemptRef> = {
    specificationVersion: "v1",
    kind: "attempts",
    tools: [tool],
    refSchema: attemptRefSchema,
    retentionMs: null,
    async doGetStatus() {
      calls.getStatus += 1;
      return structuredClone(approval);
    },
    async doRespond(_ref, responses) {
      calls.respond.push(responses);
    },
  };
  const service = new TaskService({
    adapters: [{ name: "ci", adapter }],
    sealer: new TaskIdSealer({ secret: "job-identity-test-secret-0123456789abcdef" }),
    logger: createSilentLogger(),
    snapshotCacheMs: 60_000,
  });
  const start = async (spelling: "today" | "reordered" | "older release") =>
    ((await service.callTool("follow_job", { spelling }, caller)) as CreateTaskResult).taskId;
  return { service, calls, start };
}

const caller: CallerContext & { tasksDeclared: boolean } = {
  principal: "alice",
  signal: new AbortController().signal,
  tasksDeclared: true,
};

const approve = { "approve-j-1": { action: "accept", content: { approve: true } } };

describe("one job identity for the snapshot cache and the answer ledger", () => {
  it("answers the next tasks/get from the start's first snapshot, whatever order doStart wrote its ref in", async () => {
    const { service, calls, start } = setup();
    const taskId = await start("reordered");
    expect((await service.getTask(taskId, caller)).status).toBe("input_required");
    expect(calls.getStatus).toBe(0);
  });

  it("sends an answer once for one job, even through a task id sealed in an older release's spelling", async () => {
    const { service, calls, start } = setup();
    const older = await start("older release");
    const today = await start("today");
    expect(await service.updateTask(older, approve, caller)).toEqual(["approve-j-1"]);
    // The upstream still lists the question; this process answered it, through either task id.
    expect((await service.getTask(today, caller)).status).toBe("working");
    expect(await service.updateTask(today, approve, caller)).toEqual([]);
    expect(service.wasAnswered(today, "approve-j-1", caller.principal)).toBe(true);
    expect(calls.respond).toHaveLength(1);
  });
});
