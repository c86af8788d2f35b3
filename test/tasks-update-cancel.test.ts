import { afterEach, describe, expect, it } from "vitest";
import { rawError, rawResult } from "./support/raw-rpc.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import {
  approvalRequest,
  cancelledSnapshot,
  completedSnapshot,
  createScriptedAdapter,
  inputRequiredSnapshot,
  type ScriptedAdapterOptions,
  type ScriptedJob,
} from "./support/scripted-adapter.js";

/** tasks/update and tasks/cancel: acknowledgements, ignored keys, partial answers, keys never reused. */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** Like an upstream approval gate: an answered key is gone from the outstanding set. */
function removeAnsweredKeys(job: ScriptedJob, responses: Record<string, unknown>) {
  const outstanding = { ...job.snapshot.inputRequests };
  for (const key of Object.keys(responses)) delete outstanding[key];
  job.snapshot =
    Object.keys(outstanding).length > 0
      ? inputRequiredSnapshot(outstanding)
      : { status: "working", rawStatus: "running", message: "resumed" };
}

async function serve(options: ScriptedAdapterOptions = {}) {
  const scripted = createScriptedAdapter(options);
  const server = cleanup.add(
    await startInProcessServer({ adapters: [{ name: "scripted", adapter: scripted.adapter }] }),
  );
  const url = server.url;
  const create = async () => {
    const result = await rawResult(url, "tools/call", { name: "scripted_job", arguments: {} });
    return { taskId: result["taskId"] as string, job: scripted.lastJob() };
  };
  return {
    scripted,
    url,
    create,
    get: (taskId: string) => rawResult(url, "tasks/get", { taskId }),
    update: (taskId: string, inputResponses: Record<string, unknown>) =>
      rawResult(url, "tasks/update", { taskId, inputResponses }),
    cancel: (taskId: string) => rawResult(url, "tasks/cancel", { taskId }),
  };
}

const approve = { action: "accept", content: { approve: true } };

describe("tasks/update", () => {
  it('answers only {resultType: "complete"} and delivers the answer to the upstream', async () => {
    const { create, update, scripted } = await serve();
    const { taskId, job } = await create();
    scripted.update(job, inputRequiredSnapshot({ "gate-1": approvalRequest() }));
    const answer = await update(taskId, { "gate-1": approve });
    const { _meta: _ignored, ...rest } = answer;
    expect(rest).toEqual({ resultType: "complete" });
    expect(job.responses).toEqual([{ "gate-1": approve }]);
  });

  it("ignores keys that were never issued", async () => {
    const { create, update, scripted } = await serve();
    const { taskId, job } = await create();
    scripted.update(job, inputRequiredSnapshot({ "gate-1": approvalRequest() }));
    const answer = await update(taskId, { "made-up-key": approve });
    expect(answer["resultType"]).toBe("complete");
    expect(scripted.calls.respond).toBe(0);
  });

  it("passes on only the outstanding keys when known and unknown keys arrive together", async () => {
    const { create, update, scripted } = await serve();
    const { taskId, job } = await create();
    scripted.update(job, inputRequiredSnapshot({ "gate-1": approvalRequest() }));
    await update(taskId, { "gate-1": approve, "made-up-key": approve });
    expect(job.responses).toEqual([{ "gate-1": approve }]);
  });

  it("ignores an answer to a key that was already answered, and an update while the task is working", async () => {
    const { create, update, scripted } = await serve({ onRespond: removeAnsweredKeys });
    const { taskId, job } = await create();
    scripted.update(job, inputRequiredSnapshot({ "gate-1": approvalRequest() }));
    await update(taskId, { "gate-1": approve });
    expect(scripted.calls.respond).toBe(1);
    await update(taskId, { "gate-1": { action: "decline" } });
    expect(scripted.calls.respond).toBe(1);
    expect(job.responses).toEqual([{ "gate-1": approve }]);
  });

  it("a partial set of answers keeps the task input_required with the rest outstanding", async () => {
    const { create, update, get, scripted } = await serve({ onRespond: removeAnsweredKeys });
    const { taskId, job } = await create();
    scripted.update(
      job,
      inputRequiredSnapshot({ "gate-production": approvalRequest(), "gate-staging": approvalRequest() }),
    );
    await update(taskId, { "gate-staging": approve });
    const task = await get(taskId);
    expect(task["status"]).toBe("input_required");
    expect(Object.keys(task["inputRequests"])).toEqual(["gate-production"]);
    await update(taskId, { "gate-production": approve });
    expect((await get(taskId))["status"]).toBe("working");
  });

  it("keys are never reused: a second gate gets a new key, and the old key stays dead", async () => {
    const { create, update, get, scripted } = await serve({ onRespond: removeAnsweredKeys });
    const { taskId, job } = await create();
    scripted.update(job, inputRequiredSnapshot({ "run-5-attempt-1-gate-staging": approvalRequest("staging?") }));
    const firstKeys = Object.keys((await get(taskId))["inputRequests"]);
    await update(taskId, { "run-5-attempt-1-gate-staging": approve });
    // The next gate of the same job, as an upstream reports it later.
    scripted.update(job, inputRequiredSnapshot({ "run-5-attempt-1-gate-production": approvalRequest("production?") }));
    const secondKeys = Object.keys((await get(taskId))["inputRequests"]);
    expect(secondKeys.filter((key) => firstKeys.includes(key))).toEqual([]);
    await update(taskId, { "run-5-attempt-1-gate-staging": { action: "decline" } });
    expect(job.responses).toEqual([{ "run-5-attempt-1-gate-staging": approve }]);
  });

  it("a malformed answer (unknown action) for an outstanding key is -32602", async () => {
    const { url, create, scripted } = await serve();
    const { taskId, job } = await create();
    scripted.update(job, inputRequiredSnapshot({ "gate-1": approvalRequest() }));
    const error = await rawError(url, "tasks/update", { taskId, inputResponses: { "gate-1": { action: "maybe" } } });
    expect(error.code).toBe(-32602);
    expect(scripted.calls.respond).toBe(0);
  });

  it("inputResponses that is not an object, or an answer that is not one, is -32602 naming the field", async () => {
    const { url, create, scripted } = await serve();
    const { taskId, job } = await create();
    scripted.update(job, inputRequiredSnapshot({ "gate-1": approvalRequest() }));
    for (const inputResponses of ["yes", ["gate-1"], null, 1]) {
      const error = await rawError(url, "tasks/update", { taskId, inputResponses });
      expect(error.code, JSON.stringify(inputResponses)).toBe(-32602);
      expect(error.message).toContain("inputResponses");
      expect(error.data).toMatchObject({ field: "inputResponses" });
    }
    const entry = await rawError(url, "tasks/update", { taskId, inputResponses: { "gate-1": "yes" } });
    expect(entry).toMatchObject({ code: -32602, data: { field: "inputResponses.gate-1" } });
    expect(scripted.calls.respond).toBe(0);
  });
});

describe("tasks/cancel", () => {
  it('answers {resultType: "complete"}; the task stays working until the upstream shows it cancelled', async () => {
    const { create, cancel, get, scripted } = await serve();
    const { taskId, job } = await create();
    const answer = await cancel(taskId);
    const { _meta: _ignored, ...rest } = answer;
    expect(rest).toEqual({ resultType: "complete" });
    expect(job.cancelRequested).toBe(true);
    expect((await get(taskId))["status"]).toBe("working");
    scripted.update(job, cancelledSnapshot());
    expect((await get(taskId))["status"]).toBe("cancelled");
  });

  it("may end completed when the work won the race", async () => {
    const { create, cancel, get, scripted } = await serve({
      onCancel: (job) => (job.snapshot = completedSnapshot("finished first")),
    });
    const { taskId } = await create();
    await cancel(taskId);
    const task = await get(taskId);
    expect(task["status"]).toBe("completed");
    expect(task["result"]["content"][0]["text"]).toBe("finished first");
    expect(scripted.calls.cancel).toBe(1);
  });

  it("an adapter that cannot cancel still acknowledges, and the job runs on", async () => {
    const { create, cancel, get } = await serve({ canCancel: false });
    const { taskId } = await create();
    expect((await cancel(taskId))["resultType"]).toBe("complete");
    expect((await get(taskId))["status"]).toBe("working");
  });
});
