import { afterEach, describe, expect, it, vi } from "vitest";
import { PassThrough } from "node:stream";
import { TaskIdSealer } from "./task-id.js";
import { createSilentLogger } from "./logger.js";
import { TaskService } from "./task-service.js";
import type { ClientsWithoutTasks } from "./clients-without-tasks.js";
import { startHttpServer, type RunningHttpServer } from "./http-server.js";
import { startStdioServer } from "./stdio-server.js";
import { createScriptedAdapter } from "../../../test/support/scripted-adapter.js";
import { envelope, rawResult } from "../../../test/support/raw-rpc.js";

/**
 * The server's instructions (initialize, server/discover) tell each client how to follow a job in the
 * calls it can make: a client without the tasks extension cannot call tasks/get, tasks/update or
 * tasks/cancel, and Codex shows the instructions to the model as the tools' description.
 */

const configured = "scripted_job runs the scripted pipeline.";
const taskMethods = /tasks\/get|tasks\/update|tasks\/cancel/;

function service(clientsWithoutTasks: ClientsWithoutTasks = "handles") {
  return new TaskService({
    adapters: [{ name: "scripted", adapter: createScriptedAdapter().adapter }],
    sealer: new TaskIdSealer({ secret: "server-instructions-test-secret-0123456789abcdef" }),
    logger: createSilentLogger(),
    clientsWithoutTasks,
  });
}

let http: RunningHttpServer | undefined;
afterEach(async () => {
  await http?.close();
  http = undefined;
});

async function serveHttp(clientsWithoutTasks: ClientsWithoutTasks = "handles") {
  http = await startHttpServer({
    service: service(clientsWithoutTasks),
    logger: createSilentLogger(),
    name: "instructions",
    version: "1.0.0",
    instructions: configured,
    port: 0,
  });
  return http.url;
}

async function legacyInitialize(url: string): Promise<string> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "old", version: "1.0.0" } },
    }),
  });
  const text = await response.text();
  const json = text.includes("data:")
    ? text
        .split("\n")
        .find((line) => line.startsWith("data:"))!
        .slice(5)
    : text;
  return (JSON.parse(json) as { result: { instructions: string } }).result.instructions;
}

describe("the server's instructions over HTTP", () => {
  it("tell a client that declares the extension about tasks/get, tasks/update and tasks/cancel, after the configured text", async () => {
    const url = await serveHttp();
    const { instructions } = await rawResult(url, "server/discover", {}, { tasks: true });
    expect(instructions).toMatch(new RegExp(`^${configured}`));
    expect(instructions).toMatch(/tasks\/get/);
    expect(instructions).toMatch(/tasks\/update/);
    expect(instructions).toMatch(/tasks\/cancel/);
    expect(instructions).not.toMatch(/task_status/);
  });

  it("tell a 2026 client without the extension about task_status, task_answer and task_cancel only", async () => {
    const url = await serveHttp();
    const { instructions } = await rawResult(url, "server/discover", {}, { tasks: false });
    expect(instructions).toMatch(new RegExp(`^${configured}`));
    expect(instructions).toMatch(/task_status/);
    expect(instructions).toMatch(/task_answer/);
    expect(instructions).toMatch(/task_cancel/);
    expect(instructions).not.toMatch(taskMethods);
  });

  it("tell a 2025-era client (initialize) about the three tools only", async () => {
    const instructions = await legacyInitialize(await serveHttp());
    expect(instructions).toMatch(new RegExp(`^${configured}`));
    expect(instructions).toMatch(/task_status/);
    expect(instructions).not.toMatch(taskMethods);
  });

  it("name no handle tools where there are none (wait), and no task methods to a client without the extension", async () => {
    const url = await serveHttp("wait");
    const { instructions } = await rawResult(url, "server/discover", {}, { tasks: false });
    expect(instructions).toMatch(new RegExp(`^${configured}`));
    expect(instructions).not.toMatch(/task_status|task_answer|task_cancel/);
    expect(instructions).not.toMatch(taskMethods);
  });
});

describe("the server's instructions over stdio", () => {
  it("follow each request's declared extension on one connection", async () => {
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
    const tasks = service();
    const handle = startStdioServer({
      service: tasks,
      logger: createSilentLogger(),
      name: "instructions",
      version: "1.0.0",
      instructions: configured,
      input,
      output,
    });
    const discover = async (id: number, declared: boolean) => {
      input.write(
        `${JSON.stringify({ jsonrpc: "2.0", id, method: "server/discover", params: { _meta: envelope(declared) } })}\n`,
      );
      const answer = await vi.waitFor(
        () => lines.find((line) => line["id"] === id) ?? Promise.reject(new Error(`no answer to ${id} yet`)),
        { timeout: 10_000 },
      );
      return answer["result"]["instructions"] as string;
    };
    try {
      expect(await discover(1, false)).not.toMatch(taskMethods);
      expect(await discover(2, true)).toMatch(/tasks\/get/);
      expect(await discover(3, false)).toMatch(/task_status/);
    } finally {
      await handle.close();
      await tasks.close();
    }
  });
});
