import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { startDemoApiForTests } from "./support/demo-stack.js";
import { Cleanup, randomSecret } from "./support/in-process-server.js";
import { cliBin, cliEnvironment, demoConfig, repositoryRoot } from "./support/cli-process.js";

/**
 * `jobtasks serve --stdio` receiving SIGTERM (a host quitting, a supervisor stopping it) while a client
 * without the extension waits in task_status: the wait is answered on stdout with the job's current status
 * before the process exits, and it exits 0. The client speaks JSON-RPC lines itself, so that nothing but
 * the server's own output and exit code is judged.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

type Message = { id?: number; result?: Record<string, any>; error?: { code: number; message: string } };

describe("jobtasks serve --stdio on SIGTERM", () => {
  it("answers an open task_status wait with the current status, then exits 0", async () => {
    const api = cleanup.add(await startDemoApiForTests());
    const child = spawn(process.execPath, [cliBin, "serve", "--config", demoConfig, "--stdio"], {
      cwd: repositoryRoot,
      env: cliEnvironment({ DEMO_API_URL: api.url, JOBTASKS_SECRET: randomSecret(), JOBTASKS_LOG_LEVEL: "warn" }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    cleanup.add({ close: async () => void child.kill("SIGKILL") });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

    const answers = new Map<number, (message: Message) => void>();
    let buffered = "";
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
        const message = JSON.parse(buffered.slice(0, end)) as Message;
        buffered = buffered.slice(end + 1);
        if (message.id !== undefined) answers.get(message.id)?.(message);
      }
    });
    let nextId = 0;
    const request = (method: string, params: Record<string, unknown>) => {
      const id = ++nextId;
      const answered = new Promise<Message>((resolve) => answers.set(id, resolve));
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      return answered;
    };

    // A 2025-era host: it initializes, and knows nothing of the tasks extension.
    const initialized = await request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "stdio-shutdown-test", version: "1.0.0" },
    });
    expect(initialized.result, stderr).toBeDefined();
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    // Ten minutes a step: the job is still running when the server stops.
    const handle = await request("tools/call", { name: "demo_pipeline", arguments: { steps: 2, stepMs: 600_000 } });
    const taskId = handle.result?.["structuredContent"]?.["taskId"] as string;
    expect(typeof taskId, JSON.stringify(handle)).toBe("string");

    const open = request("tools/call", { name: "task_status", arguments: { taskId, waitSeconds: 40 } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const stoppedAt = performance.now();
    child.kill("SIGTERM");

    const answer = await Promise.race([open, exited.then((code) => ({ exitedFirst: code }) as const)]);
    expect(answer, stderr).not.toHaveProperty("exitedFirst");
    const { result, error } = answer as Message;
    expect(error).toBeUndefined();
    expect(result?.["isError"]).toBeFalsy();
    expect(result?.["structuredContent"]).toMatchObject({ taskId, status: "working" });
    expect(performance.now() - stoppedAt).toBeLessThan(5_000);
    expect(await exited, stderr).toBe(0);
  }, 60_000);
});
