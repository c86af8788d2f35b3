import { describe, expect, it, vi } from "vitest";
import { PassThrough } from "node:stream";
import { TaskIdSealer } from "./task-id.js";
import { TaskService } from "./task-service.js";
import { startStdioServer } from "./stdio-server.js";
import { createScriptedAdapter } from "../../../test/support/scripted-adapter.js";
import { capturingLogger } from "./test-support/capturing-logger.js";

const envelope = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "stdio-test", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

function serveOnStreams() {
  const { logger, entries } = capturingLogger();
  const service = new TaskService({
    adapters: [{ name: "scripted", adapter: createScriptedAdapter().adapter }],
    sealer: new TaskIdSealer({ secret: "stdio-server-test-secret-0123456789abcdef" }),
    logger,
  });
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: Array<Record<string, any>> = [];
  let pending = "";
  output.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    const complete = pending.split("\n");
    pending = complete.pop()!;
    for (const line of complete) if (line !== "") lines.push(JSON.parse(line) as Record<string, any>);
  });
  const handle = startStdioServer({ service, logger, name: "stdio-test", version: "1.0.0", input, output });
  return {
    input,
    lines,
    entries,
    answerTo: (id: number) =>
      vi.waitFor(() => lines.find((line) => line["id"] === id) ?? Promise.reject(new Error(`no answer to ${id} yet`)), {
        timeout: 10_000,
      }),
    close: async () => {
      await handle.close();
      await service.close();
    },
  };
}

describe("stdio", () => {
  it("answers a message over 10 MiB with a JSON-RPC error, logs it at error level, and goes on serving", async () => {
    const { input, lines, entries, answerTo, close } = serveOnStreams();
    try {
      const padding = "x".repeat(10 * 1024 * 1024 + 1);
      // Sent in pieces, as a pipe delivers it: the bound is on the message, not on one chunk.
      const oversized = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: { padding, _meta: envelope },
      });
      for (let offset = 0; offset < oversized.length; offset += 64 * 1024)
        input.write(oversized.slice(offset, offset + 64 * 1024));
      input.write("\n");
      input.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: envelope } })}\n`);
      const listed = await answerTo(2);
      expect(lines[0]).toMatchObject({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: expect.stringContaining("10485760") },
      });
      expect(listed["result"]?.tools?.[0]?.name).toBe("scripted_job");
      expect(entries.some((entry) => entry.level >= 50 && /larger than/.test(entry.msg))).toBe(true);
    } finally {
      await close();
    }
  });

  it("answers tasks/update whose inputResponses is not an object with -32602 naming the field", async () => {
    const { input, answerTo, close } = serveOnStreams();
    try {
      const tasksEnvelope = {
        ...envelope,
        "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
      };
      input.write(
        `${JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tasks/update", params: { taskId: "jt1.x.y", inputResponses: "yes", _meta: tasksEnvelope } })}\n`,
      );
      expect(await answerTo(7)).toMatchObject({ error: { code: -32602, data: { field: "inputResponses" } } });
    } finally {
      await close();
    }
  });
});
