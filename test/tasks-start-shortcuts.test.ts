import { afterEach, describe, expect, it } from "vitest";
import { conformanceAdapter } from "@jobtasks/conformance-fixtures";
import { envelope, pollUntil, rawCall, rawResult } from "./support/raw-rpc.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";

/**
 * On the wire, through the SDK: a job finished at its start answered with its result, questions asked
 * before a start (input-required result, requestState, capabilities), a protocol-level failure chosen by
 * the adapter, and several questions outstanding at once in a task. The conformance example's fixtures
 * serve as the adapter: jobs of the kinds the official suite calls.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function serve() {
  return cleanup.add(
    await startInProcessServer({
      adapters: [{ name: "fixtures", adapter: conformanceAdapter({ pollIntervalMs: 20 }) }],
    }),
  );
}

/** _meta for a request declaring the given client capabilities (plus the tasks extension unless told). */
function declaring(capabilities: Record<string, unknown>, tasks = true) {
  const base = envelope(tasks);
  const declared = base["io.modelcontextprotocol/clientCapabilities"] as Record<string, unknown>;
  return { ...base, "io.modelcontextprotocol/clientCapabilities": { ...declared, ...capabilities } };
}

describe("starting a job, on the wire", () => {
  it("answers a job finished at its start with its result (resultType complete), even with the extension", async () => {
    const { url } = await serve();
    const result = await rawResult(url, "tools/call", { name: "greet", arguments: { name: "World" } });
    expect(result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "Hello, World!" }] });
    expect(result).not.toHaveProperty("taskId");
    const quick = await rawResult(url, "tools/call", { name: "slow_compute", arguments: { seconds: 0 } });
    expect(quick).toMatchObject({ resultType: "complete" });
    const slow = await rawResult(url, "tools/call", { name: "slow_compute", arguments: { seconds: 30 } });
    expect(slow).toMatchObject({ resultType: "task", status: "working" });
  });

  it("asks before the start, then creates a task whose result reflects the answer", async () => {
    const { url } = await serve();
    const meta = declaring({ elicitation: {} });
    const round1 = await rawResult(url, "tools/call", { name: "test_tool_with_task", arguments: {} }, { meta });
    expect(round1).toMatchObject({
      resultType: "input_required",
      inputRequests: { user_name: { method: "elicitation/create" } },
    });
    expect(typeof round1["requestState"]).toBe("string");
    expect(round1).not.toHaveProperty("taskId");
    const round2 = await rawResult(
      url,
      "tools/call",
      {
        name: "test_tool_with_task",
        arguments: {},
        inputResponses: { user_name: { action: "accept", content: { name: "Alice" } } },
        requestState: round1["requestState"],
      },
      { meta },
    );
    expect(round2).toMatchObject({ resultType: "task", status: "working" });
    expect(round2).not.toHaveProperty("requestState");
    const done = await pollUntil(
      () => rawResult(url, "tasks/get", { taskId: round2["taskId"] }),
      (task) => task["status"] === "completed",
    );
    expect(done["result"]).toMatchObject({ content: [{ type: "text", text: "Hello, Alice!" }] });
  });

  it("refuses an edited requestState with -32602, and a question the client cannot answer with -32021 and HTTP 400", async () => {
    const { url } = await serve();
    const meta = declaring({ elicitation: {} }, false);
    const round1 = await rawResult(
      url,
      "tools/call",
      { name: "test_input_required_result_elicitation", arguments: {} },
      { meta },
    );
    const tampered = await rawCall(
      url,
      "tools/call",
      {
        name: "test_input_required_result_elicitation",
        arguments: {},
        inputResponses: {},
        requestState: `${round1["requestState"]}x`,
      },
      { meta },
    );
    expect(tampered.body?.error).toMatchObject({ code: -32602, data: { field: "requestState" } });
    const missing = await rawCall(url, "tools/call", { name: "test_missing_capability", arguments: {} }, { meta });
    expect(missing.httpStatus).toBe(400);
    expect(missing.body?.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } });
  });

  it("passes an adapter's chosen protocol-level failure on as it is: failed with that error, no result", async () => {
    const { url } = await serve();
    const created = await rawResult(url, "tools/call", { name: "protocol_error_job", arguments: {} });
    const failed = await pollUntil(
      () => rawResult(url, "tasks/get", { taskId: created["taskId"] }),
      (task) => task["status"] !== "working",
    );
    expect(failed).toMatchObject({
      status: "failed",
      error: { code: -32603, message: "Internal error: protocol_error_job crashed (simulated)" },
    });
    expect(failed).not.toHaveProperty("result");
  });

  it("reports a synchronous call's progress as notifications/progress when the client gave a progressToken", async () => {
    const { url } = await serve();
    const response = await rawCall(
      url,
      "tools/call",
      { name: "test_tool_with_progress", arguments: {} },
      { meta: { ...envelope(false), progressToken: "p-1" } },
    );
    expect(response.body?.result).toMatchObject({ content: [{ type: "text", text: "Three steps done." }] });
    const progress = response.text
      .split("\n")
      .filter((line) => line.startsWith("data:") && line.includes("notifications/progress"))
      .map((line) => (JSON.parse(line.slice(5)) as { params: { progressToken: string; progress: number } }).params);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.every((params) => params.progressToken === "p-1")).toBe(true);
    expect(progress.map((params) => params.progress)).toEqual(
      progress.map((params) => params.progress).sort((a, b) => a - b),
    );
    expect(progress.at(-1)?.progress).toBe(3);
  });

  it("keeps two questions outstanding at once, answered one at a time", async () => {
    const { url } = await serve();
    const created = await rawResult(url, "tools/call", { name: "multi_input", arguments: {} });
    const taskId = created["taskId"];
    const asking = await rawResult(url, "tasks/get", { taskId });
    expect(Object.keys(asking["inputRequests"]).sort()).toEqual(["confirm", "name"]);
    await rawResult(url, "tasks/update", {
      taskId,
      inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
    });
    const partly = await rawResult(url, "tasks/get", { taskId });
    expect(partly).toMatchObject({ status: "input_required" });
    expect(Object.keys(partly["inputRequests"])).toEqual(["confirm"]);
    await rawResult(url, "tasks/update", {
      taskId,
      inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
    });
    const done = await rawResult(url, "tasks/get", { taskId });
    expect(done).toMatchObject({
      status: "completed",
      result: { content: [{ type: "text", text: "name: Ada, confirmed: true" }] },
    });
  });
});
