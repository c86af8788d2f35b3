import { z } from "@jobtasks/core";
import { describe, expect, it } from "vitest";
import type { JobAdapterV1, JsonValue } from "@jobtasks/core";
import { createSilentLogger } from "./logger.js";
import { TaskIdSealer } from "./task-id.js";
import type { CreateTaskResult } from "./task-shape.js";
import { TaskProtocolError } from "./protocol-error.js";
import { TaskService, type CallerContext } from "./task-service.js";

const sealingSecret = "ref-schema-test-sealing-secret-0123456789";
const alice: CallerContext & { tasksDeclared: boolean } = {
  principal: "alice",
  signal: new AbortController().signal,
  tasksDeclared: true,
};

/** One version of an adapter: it starts jobs with `startRef`, and records every ref it is handed. */
function adapterVersion(startRef: JsonValue, refSchema?: z.ZodType<JsonValue>) {
  const seenRefs: unknown[] = [];
  const adapter: JobAdapterV1 = {
    specificationVersion: "v1",
    kind: "versioned",
    ...(refSchema ? { refSchema } : {}),
    tools: [
      {
        name: "versioned_job",
        description: "A job.",
        inputSchema: z.object({}),
        doStart: async () => ({ ref: startRef }),
      },
    ],
    async doGetStatus(ref) {
      seenRefs.push(ref);
      return { status: "working", rawStatus: "running" };
    },
    async doCancel(ref) {
      seenRefs.push(ref);
    },
  };
  const service = new TaskService({
    adapters: [{ name: "jobs", adapter }],
    sealer: new TaskIdSealer({ secret: sealingSecret }),
    logger: createSilentLogger(),
    snapshotCacheMs: 0,
  });
  return { service, seenRefs };
}

async function protocolError(promise: Promise<unknown>): Promise<TaskProtocolError> {
  const error = await promise.then(
    () => expect.fail("expected a rejection"),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TaskProtocolError);
  return error as TaskProtocolError;
}

describe("refSchema", () => {
  const refSchema = z.object({ jobId: z.string(), attempt: z.number().int().default(1) });

  it("answers a task id whose ref does not fit exactly as an unknown id, before the adapter sees the ref", async () => {
    // A task started by an older version of the adapter, whose refs were numbers.
    const older = adapterVersion(42);
    const created = (await older.service.callTool("versioned_job", {}, alice)) as CreateTaskResult;
    const newer = adapterVersion({ jobId: "j-1" }, refSchema);

    const unknown = await protocolError(newer.service.getTask("jt1.garbage.id", alice));
    for (const call of [
      newer.service.getTask(created.taskId, alice),
      newer.service.cancelTask(created.taskId, alice),
    ]) {
      const refused = await protocolError(call);
      expect({ code: refused.code, message: refused.message, data: refused.data }).toEqual({
        code: unknown.code,
        message: unknown.message,
        data: unknown.data,
      });
      expect(refused.code).toBe(-32602);
      expect(refused.message).toMatch(/Task not found/);
    }
    expect(newer.service.canOpen(created.taskId, "alice")).toBe(false);
    expect(newer.seenRefs).toEqual([]);
  });

  it("hands the adapter the ref as its schema parsed it", async () => {
    const current = adapterVersion({ jobId: "j-1" }, refSchema);
    const created = (await current.service.callTool("versioned_job", {}, alice)) as CreateTaskResult;
    current.seenRefs.length = 0;
    await current.service.getTask(created.taskId, alice);
    expect(current.seenRefs).toEqual([{ jobId: "j-1", attempt: 1 }]);
  });

  it("passes refs on as they are to an adapter without a schema", async () => {
    const plain = adapterVersion(42);
    const created = (await plain.service.callTool("versioned_job", {}, alice)) as CreateTaskResult;
    expect(created.status).toBe("working");
    expect(plain.seenRefs).toEqual([42]);
  });
});
