import { afterEach, describe, expect, it } from "vitest";
import { rawCall, rawError, rawResult } from "./support/raw-rpc.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import {
  approvalRequest,
  cancelledSnapshot,
  completedSnapshot,
  createScriptedAdapter,
  inputRequiredSnapshot,
  workingSnapshot,
  type ScriptedAdapterOptions,
} from "./support/scripted-adapter.js";

/** A task's life as tasks/get shows it: creation, the payload of each status, and terminal stability. */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function serve(options: ScriptedAdapterOptions = {}) {
  const scripted = createScriptedAdapter(options);
  const server = cleanup.add(
    await startInProcessServer({ adapters: [{ name: "scripted", adapter: scripted.adapter }] }),
  );
  const url = server.url;
  const create = async (args: Record<string, unknown> = {}) => {
    const result = await rawResult(url, "tools/call", { name: "scripted_job", arguments: args });
    return { created: result, taskId: result["taskId"] as string, job: scripted.lastJob() };
  };
  const get = (taskId: string) => rawResult(url, "tasks/get", { taskId });
  return { scripted, url, create, get };
}

const isoDate = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const taskFieldNames = ["taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"];

describe("creating a task", () => {
  it("answers tools/call with a CreateTaskResult: resultType task, ISO dates, integer or null ttlMs, integer pollIntervalMs", async () => {
    const { create } = await serve({ retentionMs: 86_400_000 });
    const { created } = await create();
    expect(created["resultType"]).toBe("task");
    expect(typeof created["taskId"]).toBe("string");
    expect(created["taskId"].length).toBeGreaterThan(20);
    expect(created["status"]).toBe("working");
    expect(created["createdAt"]).toMatch(isoDate);
    expect(created["lastUpdatedAt"]).toMatch(isoDate);
    expect(Number.isInteger(created["ttlMs"])).toBe(true);
    expect(created["ttlMs"]).toBe(86_400_000);
    expect(Number.isInteger(created["pollIntervalMs"])).toBe(true);
    // A creation answer carries no payload: the result, error or input requests come from tasks/get.
    expect(created).not.toHaveProperty("result");
    expect(created).not.toHaveProperty("inputRequests");
  });

  it("ttlMs is null when the upstream keeps jobs forever", async () => {
    const { create } = await serve({ retentionMs: null });
    const { created } = await create();
    expect(created["ttlMs"]).toBeNull();
  });

  it("a CreateTaskResult carries only Task fields (no CallToolResult fields such as content)", async () => {
    const { create } = await serve();
    const { created } = await create();
    const extra = Object.keys(created).filter(
      (key) => !taskFieldNames.includes(key) && key !== "resultType" && key !== "_meta",
    );
    // A task-unaware reader would take `content: []` for an empty, successful tool result.
    expect(extra).toEqual([]);
  });

  it("tasks/get resolves right after creation, because the server read the job before answering", async () => {
    const { create, get, scripted } = await serve();
    const { taskId } = await create();
    expect(scripted.calls.getStatus).toBeGreaterThanOrEqual(1);
    const task = await get(taskId);
    expect(task["taskId"]).toBe(taskId);
    expect(task["status"]).toBe("working");
  });

  it('uses resultType "task" on tools/call with the extension and nowhere else', async () => {
    const { url, create } = await serve();
    const { taskId } = await create({ startAs: "input_required" });
    const answers = [
      await rawCall(url, "server/discover", {}),
      await rawCall(url, "tools/list", {}),
      await rawCall(url, "tasks/get", { taskId }),
      await rawCall(url, "tasks/update", { taskId, inputResponses: {} }),
      await rawCall(url, "tasks/cancel", { taskId }),
      await rawCall(url, "tasks/get", { taskId: "unknown" }),
    ];
    // Parsed, not matched as text: each answer is the result (or, for the unknown id, the error) it should
    // be, so an error answer cannot pass for "not a task".
    const [discover, toolsList, get, update, cancel, unknownGet] = answers;
    for (const answer of [discover, toolsList, get, update, cancel]) {
      expect(answer!.body?.error).toBeUndefined();
      expect(answer!.body?.result).toBeTypeOf("object");
      expect(answer!.body?.result?.["resultType"]).not.toBe("task");
    }
    expect(get!.body?.result?.["resultType"]).toBe("complete");
    expect(unknownGet!.body?.result).toBeUndefined();
    expect(unknownGet!.body?.error?.code).toBe(-32602);
  });
});

describe("tasks/get payload per status", () => {
  it("working: the task fields and nothing more", async () => {
    const { create, get } = await serve();
    const { taskId } = await create();
    const task = await get(taskId);
    expect(task["resultType"]).toBe("complete");
    expect(task["status"]).toBe("working");
    expect(task["statusMessage"]).toBe("started job");
    for (const payload of ["result", "error", "inputRequests"]) expect(task).not.toHaveProperty(payload);
  });

  it("input_required: every outstanding request, keyed, shaped like a standalone elicitation/create form", async () => {
    const { create, get, scripted } = await serve();
    const { taskId, job } = await create();
    scripted.update(
      job,
      inputRequiredSnapshot({
        "deploy-7-production": approvalRequest("Deploy to production?"),
        "deploy-7-staging": approvalRequest("Deploy to staging?"),
      }),
    );
    const task = await get(taskId);
    expect(task["status"]).toBe("input_required");
    expect(Object.keys(task["inputRequests"]).sort()).toEqual(["deploy-7-production", "deploy-7-staging"]);
    const request = task["inputRequests"]["deploy-7-production"];
    expect(request).toEqual({
      method: "elicitation/create",
      params: {
        mode: "form",
        message: "Deploy to production?",
        requestedSchema: expect.objectContaining({
          type: "object",
          properties: expect.objectContaining({ approve: { type: "boolean", title: "Approve" } }),
        }),
      },
    });
    expect(task).not.toHaveProperty("result");
  });

  it("completed: the tool result, with resultType complete inside, exactly as tools/call would return it", async () => {
    const { create, get, scripted } = await serve();
    const { taskId, job } = await create();
    scripted.update(job, completedSnapshot("all 3 steps passed"));
    const task = await get(taskId);
    expect(task["status"]).toBe("completed");
    expect(task["result"]).toEqual({
      resultType: "complete",
      content: [{ type: "text", text: "all 3 steps passed" }],
      structuredContent: { text: "all 3 steps passed" },
    });
    expect(task).not.toHaveProperty("error");
    expect(task).not.toHaveProperty("pollIntervalMs");
  });

  it("failed: a JSON-RPC error object and a statusMessage", async () => {
    const { create, get, scripted } = await serve();
    const { taskId, job } = await create();
    scripted.update(job, {
      status: "failed",
      rawStatus: "gone",
      message: "the run was deleted",
      error: { code: -32603, message: "the run was deleted" },
    });
    const task = await get(taskId);
    expect(task["status"]).toBe("failed");
    expect(task["error"]).toEqual({ code: -32603, message: "the run was deleted" });
    expect(typeof task["statusMessage"]).toBe("string");
    expect(task).not.toHaveProperty("result");
  });

  it("cancelled: nothing more", async () => {
    const { create, get, scripted } = await serve();
    const { taskId, job } = await create();
    scripted.update(job, cancelledSnapshot());
    const task = await get(taskId);
    expect(task["status"]).toBe("cancelled");
    for (const payload of ["result", "error", "inputRequests"]) expect(task).not.toHaveProperty(payload);
  });

  it("a job that ran and failed is completed with isError, not failed", async () => {
    const { create, get, scripted } = await serve();
    const { taskId, job } = await create();
    scripted.update(job, completedSnapshot("step 2/3 (test) failed: 1 assertion", true));
    const task = await get(taskId);
    expect(task["status"]).toBe("completed");
    expect(task["result"]["isError"]).toBe(true);
    expect(task["result"]["content"][0]["text"]).toContain("failed");
    expect(task).not.toHaveProperty("error");
  });

  it("an unknown upstream status (mapped by the adapter to working) keeps the task working", async () => {
    const { create, get, scripted } = await serve();
    const { taskId, job } = await create();
    scripted.update(job, {
      status: "working",
      rawStatus: "quantum_superposition",
      message: "upstream says quantum_superposition",
    });
    const task = await get(taskId);
    expect(task["status"]).toBe("working");
    expect(task["statusMessage"]).toContain("quantum_superposition");
  });
});

describe("terminal statuses never change", () => {
  for (const [name, terminal] of [
    ["completed", completedSnapshot("first answer")],
    ["cancelled", cancelledSnapshot()],
    [
      "failed",
      { status: "failed" as const, rawStatus: "gone", message: "gone", error: { code: -32603, message: "gone" } },
    ],
  ] as const) {
    it(`${name} stays ${name} even when the upstream later says otherwise`, async () => {
      const { create, get, scripted } = await serve();
      const { taskId, job } = await create();
      scripted.update(job, terminal);
      const first = await get(taskId);
      expect(first["status"]).toBe(name);
      // A re-run upstream: the job is working again, then finishes differently.
      scripted.update(job, workingSnapshot("re-run attempt 2"));
      const second = await get(taskId);
      scripted.update(job, completedSnapshot("second answer", true));
      const third = await get(taskId);
      for (const later of [second, third]) {
        expect(later["status"]).toBe(name);
        expect(later["result"]).toEqual(first["result"]);
        expect(later["error"]).toEqual(first["error"]);
      }
    });
  }

  it("cancel after completion leaves the task completed and does not reach the upstream", async () => {
    const { url, create, get, scripted } = await serve();
    const { taskId, job } = await create();
    scripted.update(job, completedSnapshot("done"));
    await get(taskId);
    const answer = await rawResult(url, "tasks/cancel", { taskId });
    expect(answer["resultType"]).toBe("complete");
    expect(scripted.calls.cancel).toBe(0);
    expect((await get(taskId))["status"]).toBe("completed");
  });
});

describe("errors before a task exists", () => {
  it("invalid tool arguments are -32602 naming the field, and nothing starts", async () => {
    const { url, scripted } = await serve();
    const error = await rawError(url, "tools/call", { name: "scripted_job", arguments: { label: 42 } });
    expect(error.code).toBe(-32602);
    expect(error.message).toContain("label");
    const unknownField = await rawError(url, "tools/call", { name: "scripted_job", arguments: { colour: "red" } });
    expect(unknownField.code).toBe(-32602);
    expect(unknownField.message).toContain("colour");
    expect(scripted.calls.start).toBe(0);
  });

  it("an unknown tool is -32602", async () => {
    const { url } = await serve();
    const error = await rawError(url, "tools/call", { name: "no_such_tool", arguments: {} });
    expect(error.code).toBe(-32602);
    expect(error.message).toContain("no_such_tool");
  });
});
