import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { completedSnapshot, createScriptedAdapter, workingSnapshot } from "./support/scripted-adapter.js";
import type { RunningDemoApi } from "@jobtasks/demo";
import { createDemoAdapter, startDemoApiForTests } from "./support/demo-stack.js";
import { Cleanup, randomSecret, startInProcessServer } from "./support/in-process-server.js";
import { cliBin, cliEnvironment, demoConfig, repositoryRoot } from "./support/cli-process.js";
import { rawResult } from "./support/raw-rpc.js";
import {
  connectV1Http,
  connectV1Stdio,
  followToEnd,
  textOf,
  type ToolClient,
  type V1ToolResult,
} from "./support/v1-client.js";
import { connectModernWithoutTasks } from "./support/modern-client.js";
import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";

/**
 * What most agent hosts get: a client without the tasks extension (the v1 SDK Client over Streamable HTTP
 * and over stdio, with its default 60 s request timeout, and a 2026-07-28 client that omits the extension)
 * follows demo pipelines through task_status, task_answer and task_cancel. Pipelines run in seconds; each
 * task_status call waits one second, so a pipeline outlives several calls as a real job outlives 40 s ones.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

let api: RunningDemoApi;
let stdioConfig: string;
beforeAll(async () => {
  api = await startDemoApiForTests();
  // The demo's own config, with a shorter wait for a quick finish (3 s there) so these tests stay fast.
  const directory = await mkdtemp(join(tmpdir(), "jobtasks-handles-"));
  stdioConfig = join(directory, "jobtasks.config.yaml");
  const demo = await readFile(demoConfig, "utf8");
  expect(demo).toContain("demo_pipeline: 3000");
  await writeFile(stdioConfig, demo.replace("demo_pipeline: 3000", "demo_pipeline: 300"));
});
afterAll(async () => {
  await api?.close();
});

interface Setup {
  client: ToolClient;
  /** tasks/get, from a client WITH the extension, on a server with the same secret. */
  readWithExtension(taskId: string): Promise<Record<string, any>>;
}

async function inProcess(connect: (url: string) => Promise<ToolClient>): Promise<Setup> {
  const server = cleanup.add(
    await startInProcessServer({
      adapters: [{ name: "demo", adapter: createDemoAdapter("rest", api.url) }],
      service: { snapshotCacheMs: 10 },
    }),
  );
  const client = cleanup.add(await connect(server.url));
  return { client, readWithExtension: (taskId) => rawResult(server.url, "tasks/get", { taskId }) };
}

const clients: Record<string, () => Promise<Setup>> = {
  "the v1 SDK Client over Streamable HTTP": () => inProcess((url) => connectV1Http(url)),
  "the v1 SDK Client over stdio (jobtasks serve --stdio, the demo config)": async () => {
    const secret = randomSecret();
    const client = cleanup.add(
      await connectV1Stdio({
        command: process.execPath,
        args: [cliBin, "serve", "--config", stdioConfig, "--stdio"],
        env: cliEnvironment({ DEMO_API_URL: api.url, JOBTASKS_SECRET: secret, JOBTASKS_LOG_LEVEL: "warn" }),
        cwd: repositoryRoot,
        // A host that can show forms: the answers still go through task_answer.
        capabilities: { elicitation: { form: {} } },
      }),
    );
    // A replica in this process with the same secret and adapter instance name reads the stdio server's ids.
    const replica = cleanup.add(
      await startInProcessServer({ adapters: [{ name: "demo", adapter: createDemoAdapter("rest", api.url) }], secret }),
    );
    return { client, readWithExtension: (taskId) => rawResult(replica.url, "tasks/get", { taskId }) };
  },
  "a 2026-07-28 client that omits the extension": () => inProcess((url) => connectModernWithoutTasks(url)),
};

const taskIdOf = (result: V1ToolResult) => {
  expect(result.isError, textOf(result)).not.toBe(true);
  const taskId = result.structuredContent?.["taskId"];
  expect(taskId).toMatch(/^jt1\./);
  return taskId as string;
};

/** Call task_status until the job asks a question or ends. */
async function untilAsked(client: ToolClient, taskId: string): Promise<V1ToolResult> {
  const result = await followToEnd(client, taskId, 1);
  expect(result.structuredContent?.["status"], textOf(result)).toBe("input_required");
  return result;
}

describe.each(Object.entries(clients))("%s, without the tasks extension", (_name, connect) => {
  it("lists the job tool without an output schema, and task_status, task_answer, task_cancel with theirs", async () => {
    const { client } = await connect();
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["demo_pipeline", "task_status", "task_answer", "task_cancel"]);
    expect(tools[0]).not.toHaveProperty("outputSchema");
    for (const tool of tools.slice(1)) expect(tool.outputSchema).toMatchObject({ type: "object" });
  });

  it("follows a pipeline that outlives several calls to its result; tasks/get with the extension reads the same id", async () => {
    const { client, readWithExtension } = await connect();
    const callTimes: number[] = [];
    const timed = async (call: () => Promise<V1ToolResult>) => {
      const started = Date.now();
      const result = await call();
      callTimes.push(Date.now() - started);
      return result;
    };
    const handle = await timed(() => client.callTool("demo_pipeline", { steps: 4, stepMs: 800 }));
    const taskId = taskIdOf(handle);
    expect(handle.structuredContent).toMatchObject({
      status: "working",
      pollIntervalMs: expect.any(Number),
      next: { tool: "task_status", arguments: { taskId } },
    });
    expect(textOf(handle)).toContain(`call task_status with {"taskId":"${taskId}"}`);
    expect((await readWithExtension(taskId))["status"]).toBe("working");

    let result: V1ToolResult;
    do result = await timed(() => client.callTool("task_status", { taskId, waitSeconds: 1 }));
    while (result.structuredContent?.["status"] === "working");

    expect(result.structuredContent).toMatchObject({ taskId, status: "completed", result: { status: "succeeded" } });
    expect(result.isError).not.toBe(true);
    expect(textOf(result)).toMatch(/succeeded/);
    expect(client.calls.filter((name) => name === "task_status").length).toBeGreaterThanOrEqual(3);
    // The job ran longer than any one call: no call held the client for the job's life.
    expect(result.structuredContent?.["result"]["durationMs"]).toBeGreaterThan(Math.max(...callTimes));
    const task = await readWithExtension(taskId);
    expect(task["status"]).toBe("completed");
    expect(task["result"]["structuredContent"]).toEqual(result.structuredContent?.["result"]);
  });

  it("approves through task_answer after a refused bad answer, and reports progress while task_status waits", async () => {
    const { client } = await connect();
    const taskId = taskIdOf(await client.callTool("demo_pipeline", { steps: 4, stepMs: 1_200, approval: true }));
    const asked = await untilAsked(client, taskId);
    const [key] = Object.keys(asked.structuredContent?.["inputRequests"]);
    expect(asked.structuredContent?.["inputRequests"][key!]).toMatchObject({
      method: "elicitation/create",
      params: { requestedSchema: { required: ["approve"] } },
    });
    expect(textOf(asked)).toContain(`task_answer {"taskId":"${taskId}","key":"${key}","action":"accept"`);
    expect(asked.structuredContent?.["next"]).toMatchObject({ tool: "task_answer", arguments: { taskId, key } });

    const bad = await client.callTool("task_answer", { taskId, key, action: "accept", content: { approve: "yes" } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/content\.approve: .*Nothing was sent/);
    // The form's default (approve: false) is no answer: left out, it is refused, not sent as a rejection.
    const missing = await client.callTool("task_answer", { taskId, key, action: "accept", content: {} });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/content\.approve: required.*Nothing was sent/);
    expect((await client.callTool("task_status", { taskId, waitSeconds: 0 })).structuredContent?.["status"]).toBe(
      "input_required",
    );

    const sent = await client.callTool("task_answer", {
      taskId,
      key,
      action: "accept",
      content: { approve: true, comment: "go" },
    });
    // What a host that shows the model only structuredContent gives it: the job goes on, and what to call.
    expect(sent.structuredContent).toEqual({
      taskId,
      key,
      action: "accept",
      sent: true,
      status: "working",
      next: { tool: "task_status", arguments: { taskId }, description: expect.stringMatching(/goes on/) },
    });
    const again = await client.callTool("task_answer", { taskId, key, action: "decline" });
    expect(again.isError).toBe(true);
    expect(again.structuredContent).toMatchObject({ taskId, key, action: "decline", sent: false });
    // Claude Code shows the model an error's text only: the text names the next call too.
    expect(textOf(again)).toContain(`Next: call task_status {"taskId":"${taskId}"}`);

    const progress: string[] = [];
    const finished = await client.callTool(
      "task_status",
      { taskId },
      { onprogress: (update) => progress.push(update.message ?? "") },
    );
    expect(finished.structuredContent).toMatchObject({ status: "completed", result: { status: "succeeded" } });
    // Steps 3 and 4 start while task_status waits; the REST adapter's growing poll interval may skip one.
    expect(
      progress.some((message) => /step [34]\/4/.test(message)),
      progress.join(" | "),
    ).toBe(true);
  });

  it.each([
    ["a rejection", { action: "accept", content: { approve: false } }],
    ["a decline", { action: "decline" }],
  ])("ends the pipeline completed with isError after %s through task_answer", async (_label, answer) => {
    const { client } = await connect();
    const taskId = taskIdOf(await client.callTool("demo_pipeline", { steps: 2, stepMs: 200, approval: true }));
    const [key] = Object.keys((await untilAsked(client, taskId)).structuredContent?.["inputRequests"]);
    expect((await client.callTool("task_answer", { taskId, key, ...answer })).structuredContent?.["sent"]).toBe(true);
    const finished = await followToEnd(client, taskId, 5);
    expect(finished.structuredContent?.["status"]).toBe("completed");
    expect(finished.isError).toBe(true);
    expect(finished.structuredContent?.["result"]["status"]).toBe("rejected");
  });

  it("reports a failing pipeline as isError from task_status, with its log", async () => {
    const { client } = await connect();
    const taskId = taskIdOf(await client.callTool("demo_pipeline", { steps: 2, stepMs: 400, fail: true }));
    const finished = await followToEnd(client, taskId, 5);
    expect(finished.structuredContent?.["status"]).toBe("completed");
    expect(finished.isError).toBe(true);
    expect(finished.structuredContent?.["result"]["status"]).toBe("failed");
    // The REST adapter's message for an upstream status "failed": not "failed: failed".
    expect(finished.structuredContent?.["statusMessage"]).toBe("failed");
    expect(textOf(finished)).toMatch(/failed/);
  });

  it("cancels through task_cancel: requested, then cancelled", async () => {
    const { client } = await connect();
    const taskId = taskIdOf(await client.callTool("demo_pipeline", { steps: 5, stepMs: 2_000 }));
    const requested = await client.callTool("task_cancel", { taskId });
    expect(requested.structuredContent).toMatchObject({
      taskId,
      status: "working",
      cancelRequested: true,
      next: { tool: "task_status", arguments: { taskId } },
    });
    expect(textOf(requested)).toMatch(/requested/);
    const ended = await followToEnd(client, taskId, 5);
    expect(ended.structuredContent?.["status"]).toBe("cancelled");
    expect(textOf(ended)).toBe("demo_pipeline was cancelled; it has no result.");
  });

  it("answers Task not found for a forged id, and a tool error naming the field for bad arguments", async () => {
    const { client } = await connect();
    const taskId = taskIdOf(await client.callTool("demo_pipeline", { steps: 1, stepMs: 2_000 }));
    const forged = await client.callTool("task_status", { taskId: `${taskId.slice(0, -6)}AAAAAA`, waitSeconds: 0 });
    expect(forged.isError).toBe(true);
    expect(textOf(forged)).toMatch(/Task not found/);
    const invalid = await client.callTool("task_status", { taskId, waitSeconds: 90 });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/Invalid arguments for tool task_status: waitSeconds/);
  });
});

describe("a closed connection", () => {
  // The v1 Client answers an aborted call with notifications/cancelled and keeps the HTTP response open
  // (stateless 2025-era serving cannot tie that notification to the request); closing the client, as a
  // host does when it quits, closes the connection. The v2 Client closes the request's own connection.
  it.each([
    ["the v1 SDK Client over Streamable HTTP is closed", (url: string) => connectV1Http(url), "close"],
    ["a 2026-07-28 client aborts the call", (url: string) => connectModernWithoutTasks(url), "abort"],
  ] as const)(
    "ends task_status's wait at once, with no further upstream reads, when %s",
    async (_name, connect, how) => {
      const scripted = createScriptedAdapter({ pollIntervalMs: 20 });
      const server = cleanup.add(
        await startInProcessServer({ adapters: [{ name: "scripted", adapter: scripted.adapter }] }),
      );
      const client = cleanup.add(await connect(server.url));
      const taskId = taskIdOf(await client.callTool("scripted_job", {}));
      const controller = new AbortController();
      const waiting = client.callTool("task_status", { taskId }, { signal: controller.signal });
      const readsBefore = scripted.calls.getStatus;
      await vi.waitUntil(() => scripted.calls.getStatus >= readsBefore + 3, { timeout: 10_000, interval: 5 });
      if (how === "abort") controller.abort();
      else await client.close();
      await expect(waiting).rejects.toThrow();
      // The server notices the closed request and stops polling for it: the count settles.
      await vi.waitUntil(
        async () => {
          const seen = scripted.calls.getStatus;
          await new Promise((resolve) => setTimeout(resolve, 100));
          return scripted.calls.getStatus === seen;
        },
        { timeout: 5_000, interval: 1 },
      );
      const settled = scripted.calls.getStatus;
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(scripted.calls.getStatus).toBe(settled);
    },
  );
});

describe("a v1 host that declares form elicitation (stdio)", () => {
  const connectShowingForms = (config: string, onElicit: (message: string) => ElicitResult) =>
    connectV1Stdio({
      command: process.execPath,
      args: [cliBin, "serve", "--config", config, "--stdio"],
      env: cliEnvironment({ DEMO_API_URL: api.url, JOBTASKS_SECRET: randomSecret(), JOBTASKS_LOG_LEVEL: "warn" }),
      cwd: repositoryRoot,
      capabilities: { elicitation: { form: {} } },
      onElicit: async (request) => onElicit(request.message),
    });

  it("is raised no form by default: a host that declines forms unseen (codex exec) cannot refuse the approval", async () => {
    const asked: string[] = [];
    const client = cleanup.add(
      await connectShowingForms(stdioConfig, (message) => (asked.push(message), { action: "decline" })),
    );
    const taskId = taskIdOf(await client.callTool("demo_pipeline", { steps: 2, stepMs: 300, approval: true }));
    const waiting = await untilAsked(client, taskId);
    expect(asked).toEqual([]);
    expect(waiting.structuredContent?.["next"]).toMatchObject({ tool: "task_answer", arguments: { taskId } });
  });

  it("with formsFromTaskStatus, gets the approval as a form from task_status, and the pipeline goes on within the same call", async () => {
    const formsConfig = stdioConfig.replace(/\.yaml$/, ".forms.yaml");
    await writeFile(
      formsConfig,
      (await readFile(stdioConfig, "utf8")).replace(
        "  pollIntervalMs:",
        "  formsFromTaskStatus: true\n  pollIntervalMs:",
      ),
    );
    const asked: string[] = [];
    const client = cleanup.add(
      await connectShowingForms(
        formsConfig,
        (message) => (asked.push(message), { action: "accept", content: { approve: true } }),
      ),
    );
    const taskId = taskIdOf(await client.callTool("demo_pipeline", { steps: 2, stepMs: 300, approval: true }));
    const finished = await client.callTool("task_status", { taskId, waitSeconds: 20 });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/Approve the deploy|Deploy/);
    expect(finished.structuredContent).toMatchObject({ status: "completed", result: { status: "succeeded" } });
    // One task_status call: the user answered in the form, the model spent no turn on the question.
    expect(client.calls.filter((name) => name === "task_status")).toHaveLength(1);
  });
});

describe("a 10-minute job on a simulated clock (the server's now and sleep), default waits", () => {
  it.each([
    ["the v1 SDK Client over Streamable HTTP", (url: string) => connectV1Http(url)],
    ["a 2026-07-28 client that omits the extension", (url: string) => connectModernWithoutTasks(url)],
  ] as const)(
    "%s follows it to its result in at most 16 task_status calls, none near its 60 s timeout",
    async (_name, connect) => {
      const clock = { now: Date.UTC(2026, 11, 1, 9, 0) };
      const scripted = createScriptedAdapter({ pollIntervalMs: 5_000 });
      let startedAt = 0;
      const server = cleanup.add(
        await startInProcessServer({
          adapters: [{ name: "scripted", adapter: scripted.adapter }],
          service: {
            now: () => clock.now,
            // Simulated time passes only while the server waits; the job moves with it.
            sleep: async (milliseconds) => {
              clock.now += milliseconds;
              const elapsed = clock.now - startedAt;
              scripted.update(
                scripted.lastJob(),
                elapsed >= 600_000
                  ? completedSnapshot("deployed after 10 minutes")
                  : workingSnapshot(`minute ${Math.floor(elapsed / 60_000) + 1} of 10`),
              );
            },
          },
        }),
      );
      const client = cleanup.add(await connect(server.url));
      startedAt = clock.now;
      const taskId = taskIdOf(await client.callTool("scripted_job", {}));
      const waits: number[] = [];
      let result: V1ToolResult;
      do {
        const before = clock.now;
        result = await client.callTool("task_status", { taskId });
        waits.push(clock.now - before);
      } while (result.structuredContent?.["status"] === "working" && waits.length < 100);
      expect(result.structuredContent).toMatchObject({
        status: "completed",
        result: { text: "deployed after 10 minutes" },
      });
      expect(clock.now - startedAt).toBeGreaterThanOrEqual(600_000);
      expect(waits.length).toBeLessThanOrEqual(16);
      expect(Math.max(...waits)).toBeLessThanOrEqual(40_000);
    },
  );
});
