import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { TaskOutcome } from "@modelcontextprotocol/ext-tasks/client";
import {
  answerElicitations,
  connectHttpRequester,
  connectStdioRequester,
  type ConnectedRequester,
} from "./support/requester.js";
import { Cleanup, randomSecret } from "./support/in-process-server.js";
import { startDemoApiForTests, startDemoStack, type DemoStack } from "./support/demo-stack.js";
import { cliBin, cliEnvironment, demoConfig, repositoryRoot } from "./support/cli-process.js";
import type { RunningDemoApi } from "@jobtasks/demo";

/**
 * The demo pipeline driven by the official requester (SDK Client + ext-tasks), the way an agent host would
 * drive it, and judged by what the agent gets back: the outcome, the result text, the structured content.
 */

interface ToolResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, any>;
  isError?: boolean;
}

function completedResult(outcome: TaskOutcome<unknown>): ToolResult {
  if (outcome.status !== "completed")
    throw new Error(`expected a completed task, got ${JSON.stringify(outcome).slice(0, 600)}`);
  return outcome.result as ToolResult;
}

function text(result: ToolResult): string {
  return result.content.map((block) => block.text ?? "").join("\n");
}

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** After cancel, follow the task as an agent would (tasks/get through the session) until it is terminal. */
async function finalStatus(requester: ConnectedRequester, taskId: string, timeoutMs = 10_000): Promise<string> {
  const controller = requester.session.task(taskId as never);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const view = await controller.snapshot();
    if (["completed", "failed", "cancelled"].includes(view.status)) return view.status;
    if (Date.now() > deadline) throw new Error(`task still ${view.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

// The same flows through both adapters that serve the demo: the shipped config uses the REST preset.
describe.each([
  ["the hand-written demo adapter", "demo"],
  ["the REST adapter's demo-api preset", "rest"],
] as const)("demo pipeline over Streamable HTTP (in-process server), through %s", (_label, adapter) => {
  let stack: DemoStack;
  beforeAll(async () => {
    stack = await startDemoStack({ adapter });
  });
  afterAll(() => stack?.close());

  const connect = (onInputRequest?: ReturnType<typeof answerElicitations>["handler"]) =>
    connectHttpRequester({ url: stack.server.url, ...(onInputRequest ? { onInputRequest } : {}) }).then((requester) =>
      cleanup.add(requester),
    );

  it("success: completed with text and structured content, progress shown on the way", async () => {
    const requester = await connect();
    // Each step lasts 400 ms, so a client slowed down by a loaded machine still sees at least one of them.
    const execution = await requester.session.callTool("demo_pipeline", { steps: 3, stepMs: 400 });
    expect(execution.kind).toBe("task");
    const messages: string[] = [];
    const { outcome } = await execution.settle({
      onEvent: (event) => {
        if (event.type === "task" && event.task.statusMessage) messages.push(event.task.statusMessage);
      },
    });
    const result = completedResult(outcome);
    expect(result.isError).not.toBe(true);
    expect(text(result)).toMatch(/succeeded/);
    expect(result.structuredContent).toMatchObject({ status: "succeeded", steps: expect.any(Array) });
    expect(result.structuredContent!["steps"]).toHaveLength(3);
    expect(messages.some((message) => /step \d\/3/.test(message))).toBe(true);
  });

  it("approve: the form is answered once, then the pipeline completes", async () => {
    const elicitations = answerElicitations({ action: "accept", content: { approve: true, comment: "ship it" } });
    const requester = await connect(elicitations.handler);
    const execution = await requester.session.callTool("demo_pipeline", { steps: 3, stepMs: 10, approval: true });
    const { outcome } = await execution.settle();
    const result = completedResult(outcome);
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent?.["status"]).toBe("succeeded");
    expect(elicitations.asked).toHaveLength(1);
    const schema = elicitations.asked[0]!.params["requestedSchema"] as { properties: Record<string, { type: string }> };
    expect(schema.properties["approve"]!.type).toBe("boolean");
    expect(elicitations.asked[0]!.params["mode"]).toBe("form");
  });

  it("reject: completed with isError and the reviewer's comment", async () => {
    const elicitations = answerElicitations({
      action: "accept",
      content: { approve: false, comment: "not on a Friday" },
    });
    const requester = await connect(elicitations.handler);
    const execution = await requester.session.callTool("demo_pipeline", { steps: 3, stepMs: 10, approval: true });
    const result = completedResult((await execution.settle()).outcome);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/rejected/);
    expect(text(result)).toContain("not on a Friday");
  });

  it("decline: the form declined in the client rejects the deploy (completed with isError)", async () => {
    const elicitations = answerElicitations({ action: "decline" });
    const requester = await connect(elicitations.handler);
    const execution = await requester.session.callTool("demo_pipeline", { steps: 2, stepMs: 10, approval: true });
    const result = completedResult((await execution.settle()).outcome);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/rejected/);
    expect(elicitations.asked).toHaveLength(1);
  });

  it("fail: completed with isError, the failed step and a log excerpt", async () => {
    const requester = await connect();
    const execution = await requester.session.callTool("demo_pipeline", { steps: 3, stepMs: 10, fail: true });
    const result = completedResult((await execution.settle()).outcome);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/failed/);
    expect(result.structuredContent?.["failedStep"]).toEqual(expect.any(String));
    expect(result.structuredContent?.["logExcerpt"]).toEqual(expect.arrayContaining([expect.any(String)]));
  });

  it("cancel: the task ends cancelled", async () => {
    const requester = await connect();
    const execution = await requester.session.callTool("demo_pipeline", { steps: 50, stepMs: 50 });
    if (execution.kind !== "task") throw new Error("expected a task");
    await execution.cancel();
    expect(await finalStatus(requester, execution.handle.taskId)).toBe("cancelled");
  });

  it("invalid arguments are refused before anything runs, naming the field", async () => {
    const requester = await connect();
    await expect(requester.session.callTool("demo_pipeline", { steps: 500 })).rejects.toThrow(/steps/);
  });
});

describe("demo pipeline with bearer tokens (official requester)", () => {
  const aliceToken = "alice-demo-token-0123456789";
  const bobToken = "bob-demo-token-9876543210ab";
  let stack: DemoStack;
  beforeAll(async () => {
    stack = await startDemoStack({ tokens: `alice:${aliceToken},bob:${bobToken}` });
  });
  afterAll(() => stack?.close());

  it("alice runs and approves her pipeline; bob cannot see her task; no token cannot connect", async () => {
    const elicitations = answerElicitations({ action: "accept", content: { approve: true } });
    const alice = cleanup.add(
      await connectHttpRequester({ url: stack.server.url, token: aliceToken, onInputRequest: elicitations.handler }),
    );
    const execution = await alice.session.callTool("demo_pipeline", { steps: 2, stepMs: 10, approval: true });
    if (execution.kind !== "task") throw new Error("expected a task");
    const taskId = execution.handle.taskId;
    const bob = cleanup.add(await connectHttpRequester({ url: stack.server.url, token: bobToken }));
    await expect(bob.session.task(taskId).snapshot()).rejects.toMatchObject({
      code: -32602,
      message: "Failed to retrieve task: Task not found",
    });
    const result = completedResult((await execution.settle()).outcome);
    expect(result.structuredContent?.["status"]).toBe("succeeded");
    await expect(connectHttpRequester({ url: stack.server.url })).rejects.toThrow(/401|nauthori/);
  });
});

describe("demo pipeline over stdio (the jobtasks CLI as a subprocess)", () => {
  let api: RunningDemoApi;
  beforeAll(async () => {
    api = await startDemoApiForTests();
  });
  afterAll(() => api?.close());

  const connect = async (onInputRequest?: ReturnType<typeof answerElicitations>["handler"]) => {
    let stderr = "";
    const requester = await connectStdioRequester({
      command: process.execPath,
      args: [cliBin, "serve", "--config", demoConfig, "--stdio"],
      cwd: repositoryRoot,
      env: cliEnvironment({ DEMO_API_URL: api.url, JOBTASKS_SECRET: randomSecret() }),
      onStderr: (chunk) => {
        stderr += chunk;
      },
      ...(onInputRequest ? { onInputRequest } : {}),
    }).catch((error: unknown) => {
      throw new Error(`could not connect over stdio: ${String(error)}\n${stderr}`);
    });
    return cleanup.add(requester);
  };

  it("approve: completed after the form is accepted", async () => {
    const elicitations = answerElicitations({ action: "accept", content: { approve: true } });
    const requester = await connect(elicitations.handler);
    const execution = await requester.session.callTool("demo_pipeline", { steps: 2, stepMs: 10, approval: true });
    expect(execution.kind).toBe("task");
    const result = completedResult((await execution.settle()).outcome);
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent?.["status"]).toBe("succeeded");
    expect(elicitations.asked).toHaveLength(1);
  });

  it("reject: completed with isError and the reviewer's comment", async () => {
    const elicitations = answerElicitations({ action: "accept", content: { approve: false, comment: "not today" } });
    const requester = await connect(elicitations.handler);
    const execution = await requester.session.callTool("demo_pipeline", { steps: 2, stepMs: 10, approval: true });
    const result = completedResult((await execution.settle()).outcome);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/rejected/);
    expect(text(result)).toContain("not today");
  });

  it("fail: completed with isError and a log excerpt", async () => {
    const requester = await connect();
    const execution = await requester.session.callTool("demo_pipeline", { steps: 3, stepMs: 10, fail: true });
    const result = completedResult((await execution.settle()).outcome);
    expect(result.isError).toBe(true);
    expect(result.structuredContent?.["logExcerpt"]).toEqual(expect.arrayContaining([expect.any(String)]));
  });

  it("cancel: the task ends cancelled", async () => {
    const requester = await connect();
    const execution = await requester.session.callTool("demo_pipeline", { steps: 50, stepMs: 50 });
    if (execution.kind !== "task") throw new Error("expected a task");
    await execution.cancel();
    expect(await finalStatus(requester, execution.handle.taskId)).toBe("cancelled");
  });
});
