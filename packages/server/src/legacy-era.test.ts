import { afterEach, describe, expect, it } from "vitest";
import { TaskIdSealer } from "./task-id.js";
import { createSilentLogger } from "./logger.js";
import { TaskService } from "./task-service.js";
import type { ClientsWithoutTasks } from "./clients-without-tasks.js";
import { startHttpServer, type RunningHttpServer } from "./http-server.js";
import { createScriptedAdapter } from "../../../test/support/scripted-adapter.js";

let http: RunningHttpServer | undefined;
afterEach(async () => {
  await http?.close();
  http = undefined;
});

async function legacyToolCall(clientsWithoutTasks: ClientsWithoutTasks) {
  const scripted = createScriptedAdapter();
  const service = new TaskService({
    adapters: [{ name: "scripted", adapter: scripted.adapter }],
    sealer: new TaskIdSealer({ secret: "legacy-era-test-secret-0123456789abcdef" }),
    logger: createSilentLogger(),
    clientsWithoutTasks,
  });
  http = await startHttpServer({ service, logger: createSilentLogger(), name: "legacy", version: "1.0.0", port: 0 });
  const response = await fetch(http.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "scripted_job",
        arguments: {},
        _meta: {
          "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
        },
      },
    }),
  });
  return { scripted, text: await response.text() };
}

describe("2025-era requests", () => {
  it("get a handle, never a task, even when their _meta names the tasks extension", async () => {
    const { scripted, text } = await legacyToolCall("handles");
    expect(text).not.toContain('"resultType":"task"');
    expect(text).toContain('"structuredContent":{"taskId":"jt1.');
    expect(text).toContain("task_status");
    expect(scripted.calls.start).toBe(1);
  });

  it("are refused with -32021 under refuse, before anything starts", async () => {
    const { scripted, text } = await legacyToolCall("refuse");
    expect(text).not.toContain('"resultType":"task"');
    expect(text).not.toContain("jt1.");
    expect(text).toContain("-32021");
    expect(scripted.calls.start).toBe(0);
  });
});
