import { describe, expect, it, vi } from "vitest";
import { InvalidToolInputError, UpstreamError, type CallToolResult, z } from "@jobtasks/core";
import { TaskIdSealer } from "./task-id.js";
import { type CreateTaskResult } from "./task-shape.js";
import { createSilentLogger } from "./logger.js";
import { TaskProtocolError } from "./protocol-error.js";
import { TaskService, type CallerContext } from "./task-service.js";
import type { ClientsWithoutTasks } from "./clients-without-tasks.js";
import {
  approvalRequest,
  cancelledSnapshot,
  completedSnapshot,
  createScriptedAdapter,
  inputRequiredSnapshot,
  type ScriptedAdapterOptions,
} from "../../../test/support/scripted-adapter.js";

const secret = "task-service-test-secret-0123456789abcdef";

function setup(
  options: ScriptedAdapterOptions & { now?: () => number; clientsWithoutTasks?: ClientsWithoutTasks } = {},
) {
  const scripted = createScriptedAdapter(options);
  const service = new TaskService({
    adapters: [{ name: "scripted", adapter: scripted.adapter }],
    sealer: new TaskIdSealer({ secret }),
    logger: createSilentLogger(),
    snapshotCacheMs: 0,
    immediateRetryDelayMs: 1,
    ...(options.now ? { now: options.now } : {}),
    ...(options.clientsWithoutTasks ? { clientsWithoutTasks: options.clientsWithoutTasks } : {}),
  });
  return { scripted, service };
}

const alice: CallerContext & { tasksDeclared: boolean } = {
  principal: "alice",
  signal: new AbortController().signal,
  tasksDeclared: true,
};

async function expectProtocolError(
  promise: Promise<unknown>,
  code: number,
  message?: RegExp,
): Promise<TaskProtocolError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TaskProtocolError);
  expect((error as TaskProtocolError).code).toBe(code);
  if (message) expect((error as TaskProtocolError).message).toMatch(message);
  return error as TaskProtocolError;
}

describe("TaskService.callTool", () => {
  it("answers a declaring client with a task whose id opens for tasks/get", async () => {
    const { service } = setup();
    const created = (await service.callTool("scripted_job", { label: "build" }, alice)) as CreateTaskResult;
    expect(created).toMatchObject({
      resultType: "task",
      status: "working",
      statusMessage: "started build",
      ttlMs: null,
      pollIntervalMs: 50,
    });
    const task = await service.getTask(created.taskId, alice);
    expect(task).toMatchObject({ taskId: created.taskId, status: "working", createdAt: created.createdAt });
  });

  it("refuses unknown tools and invalid arguments with -32602 naming the field", async () => {
    const { service, scripted } = setup();
    await expectProtocolError(service.callTool("nope", {}, alice), -32602, /Unknown tool: nope/);
    const error = await expectProtocolError(
      service.callTool("scripted_job", { label: 7 }, alice),
      -32602,
      /scripted_job: label: /,
    );
    expect(error.data).toMatchObject({ field: "label" });
    await expectProtocolError(service.callTool("scripted_job", { extra: true }, alice), -32602, /arguments|extra/);
    expect(scripted.calls.start).toBe(0);
  });

  it("passes an adapter's own input refusal on as -32602", async () => {
    const { service, scripted } = setup();
    scripted.adapter.tools[0]!.doStart = async () => {
      throw new InvalidToolInputError("ref", "branch main is not in the allow-list");
    };
    const error = await expectProtocolError(service.callTool("scripted_job", {}, alice), -32602);
    expect(error.message).toBe("Invalid arguments for tool scripted_job: ref: branch main is not in the allow-list");
  });

  it("requires the extension from a client that did not declare it, before starting anything (refuse, and wait without a bound)", async () => {
    for (const clientsWithoutTasks of ["refuse", "wait"] as const) {
      const { service, scripted } = setup({ clientsWithoutTasks });
      const error = await expectProtocolError(
        service.callTool("scripted_job", {}, { ...alice, tasksDeclared: false }),
        -32021,
      );
      expect(error.data).toEqual({ requiredCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } });
      expect(scripted.calls.start).toBe(0);
    }
  });

  it("refuse answers -32021 even for a tool that opted into synchronous waiting", async () => {
    const { service, scripted } = setup({ clientsWithoutTasks: "refuse", synchronousWaitMs: 10_000 });
    await expectProtocolError(service.callTool("scripted_job", {}, { ...alice, tasksDeclared: false }), -32021);
    expect(scripted.calls.start).toBe(0);
  });

  it("reports an upstream refusal to start as a tool error the agent can read", async () => {
    const { service, scripted } = setup();
    scripted.adapter.tools[0]!.doStart = async () => {
      throw new UpstreamError("workflow deploy.yml not found (HTTP 404)", { httpStatus: 404 });
    };
    const result = (await service.callTool("scripted_job", {}, alice)) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({
      type: "text",
      text: expect.stringContaining("workflow deploy.yml not found"),
    });
  });

  it("cancels a job whose client left while it was being started", async () => {
    const { service, scripted } = setup();
    const tool = scripted.adapter.tools[0]!;
    const start = tool.doStart.bind(tool);
    const controller = new AbortController();
    tool.doStart = async (input, ctx) => {
      const started = await start(input, ctx);
      controller.abort(new Error("client went away"));
      return started;
    };
    await expect(service.callTool("scripted_job", {}, { ...alice, signal: controller.signal })).rejects.toThrow(
      "client went away",
    );
    expect(scripted.onlyJob().cancelRequested).toBe(true);
  });

  it("cancels a job whose reference is too large for a task id, and says so", async () => {
    const { service, scripted } = setup();
    const tool = scripted.adapter.tools[0]!;
    const start = tool.doStart.bind(tool);
    tool.doStart = async (input, ctx) => {
      const started = await start(input, ctx);
      return { ref: { ...started.ref, padding: "x".repeat(4_000) } as never };
    };
    scripted.adapter.doCancel = async () => {
      scripted.onlyJob().cancelRequested = true;
    };
    const result = (await service.callTool("scripted_job", {}, alice)) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/too large for a task id.*The job was cancelled/);
    expect(scripted.onlyJob().cancelRequested).toBe(true);
  });

  it("cancels a job whose reference its adapter's own refSchema refuses, and says so, rather than hand out an id that never opens", async () => {
    const { service, scripted } = setup();
    // A schema that does not match what the tool seals ({ jobId }): an adapter whose start and schema disagree.
    (scripted.adapter as { refSchema?: unknown }).refSchema = z.strictObject({ runId: z.number() });
    scripted.adapter.doCancel = async () => {
      scripted.onlyJob().cancelRequested = true;
    };
    const result = (await service.callTool("scripted_job", {}, alice)) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/its own refSchema refuses.*The job was cancelled/);
    expect(scripted.onlyJob().cancelRequested).toBe(true);
  });

  it("serves a non-declaring client synchronously when the tool opts in, up to its bound", async () => {
    const { service, scripted } = setup({ pollIntervalMs: 5, clientsWithoutTasks: "wait" });
    // A bound far above the job's life, which ends once the service has seen it working (not after a fixed delay).
    scripted.adapter.tools[0]!.synchronousWaitMs = 10_000;
    const pending = service.callTool("scripted_job", { label: "quick" }, { ...alice, tasksDeclared: false });
    await vi.waitUntil(() => scripted.calls.getStatus >= 1, { timeout: 10_000, interval: 5 });
    scripted.update(scripted.onlyJob(), completedSnapshot("quick result"));
    const result = (await pending) as CallToolResult;
    expect(result).toEqual({
      content: [{ type: "text", text: "quick result" }],
      structuredContent: { text: "quick result" },
    });
  });

  it("lets the server config open a tool to synchronous callers, and refuses an unknown tool name there", async () => {
    const scripted = createScriptedAdapter({ pollIntervalMs: 5 });
    const common = {
      adapters: [{ name: "scripted", adapter: scripted.adapter }],
      sealer: new TaskIdSealer({ secret }),
      logger: createSilentLogger(),
    };
    const service = new TaskService({
      ...common,
      synchronousWaitMs: { scripted_job: 10_000 },
      clientsWithoutTasks: "wait",
    });
    const pending = service.callTool("scripted_job", {}, { ...alice, tasksDeclared: false });
    await vi.waitUntil(() => scripted.calls.getStatus >= 1, { timeout: 10_000, interval: 5 });
    scripted.update(scripted.onlyJob(), completedSnapshot("configured"));
    expect(((await pending) as CallToolResult).content).toEqual([{ type: "text", text: "configured" }]);
    expect(() => new TaskService({ ...common, synchronousWaitMs: { nope: 1 } })).toThrow(
      /server\.synchronousWaitMs\.nope: no adapter offers a tool named "nope"/,
    );
  });

  it("bounds how many synchronous calls wait at once, refusing the extra one before it starts anything", async () => {
    const scripted = createScriptedAdapter({ pollIntervalMs: 5 });
    const service = new TaskService({
      adapters: [{ name: "scripted", adapter: scripted.adapter }],
      sealer: new TaskIdSealer({ secret }),
      logger: createSilentLogger(),
      synchronousWaitMs: { scripted_job: 10_000 },
      maxSynchronousCalls: 1,
      clientsWithoutTasks: "wait",
    });
    const synchronous = { ...alice, tasksDeclared: false };
    const first = service.callTool("scripted_job", {}, synchronous);
    const second = (await service.callTool("scripted_job", {}, synchronous)) as CallToolResult;
    expect(second.isError).toBe(true);
    expect(JSON.stringify(second.content)).toMatch(/already waiting for 1 synchronous calls/);
    expect(scripted.calls.start).toBe(1);
    scripted.update(scripted.onlyJob(), completedSnapshot("first"));
    expect(((await first) as CallToolResult).isError).not.toBe(true);
  });

  it("cancels a synchronous job whose client stops waiting (its own timeout), since nobody can follow it", async () => {
    const { service, scripted } = setup({ pollIntervalMs: 5, clientsWithoutTasks: "wait" });
    scripted.adapter.tools[0]!.synchronousWaitMs = 10_000;
    const controller = new AbortController();
    const pending = service.callTool("scripted_job", {}, { ...alice, signal: controller.signal, tasksDeclared: false });
    // The client gives up while the job runs: once the service has read it working.
    await vi.waitUntil(() => scripted.calls.getStatus >= 1, { timeout: 10_000, interval: 5 });
    controller.abort(new Error("client timeout"));
    await expect(pending).rejects.toThrow();
    expect(scripted.onlyJob().cancelRequested).toBe(true);
  });

  it("cancels a synchronous job that outlives its bound and says so", async () => {
    const { service, scripted } = setup({ pollIntervalMs: 5, clientsWithoutTasks: "wait" });
    scripted.adapter.tools[0]!.synchronousWaitMs = 40;
    const result = (await service.callTool("scripted_job", {}, { ...alice, tasksDeclared: false })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/did not finish within 40 ms.*cancelled/);
    expect(scripted.onlyJob().cancelRequested).toBe(true);
  });
});

describe("TaskService task ids", () => {
  it("answers another principal's, tampered and random ids exactly like unknown ones", async () => {
    const { service } = setup();
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    const bob = { principal: "bob", signal: alice.signal };
    const tampered = created.taskId.slice(0, -2) + (created.taskId.endsWith("A") ? "BB" : "AA");
    const messages = new Set<string>();
    for (const [taskId, caller] of [
      [created.taskId, bob],
      [tampered, alice],
      ["random", alice],
      ["", alice],
    ] as const) {
      for (const call of [
        service.getTask(taskId, caller),
        service.updateTask(taskId, {}, caller),
        service.cancelTask(taskId, caller),
      ]) {
        const error = await expectProtocolError(call, -32602);
        messages.add(error.message);
        expect(error.data).toBeUndefined();
      }
    }
    expect([...messages]).toEqual(["Failed to retrieve task: Task not found"]);
  });

  it("expires a task after its ttl (the upstream's retention)", async () => {
    let now = Date.UTC(2026, 0, 1);
    const { service } = setup({ retentionMs: 60_000, now: () => now });
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    expect(created.ttlMs).toBe(60_000);
    now += 60_001;
    await expectProtocolError(service.getTask(created.taskId, alice), -32602, /Task has expired/);
  });

  it("opens a repeated id once: its reference, adapter and parsed ref are remembered, its expiry is not", async () => {
    let now = Date.UTC(2026, 0, 1);
    const { service, scripted } = setup({ retentionMs: 60_000, now: () => now });
    const schema = z.strictObject({ jobId: z.string() });
    let parses = 0;
    (scripted.adapter as { refSchema?: unknown }).refSchema = {
      safeParse: (value: unknown) => {
        parses += 1;
        return schema.safeParse(value);
      },
    };
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    parses = 0;
    for (let poll = 0; poll < 3; poll += 1) await service.getTask(created.taskId, alice);
    expect(service.canOpen(created.taskId, "alice")).toBe(true);
    expect(parses).toBe(1);
    // Remembered for alice only: the id still opens for nobody else.
    expect(service.canOpen(created.taskId, "bob")).toBe(false);
    now += 60_001;
    await expectProtocolError(service.getTask(created.taskId, alice), -32602, /Task has expired/);
  });

  it("hands adapters one logger, built once, not one per request", async () => {
    const { service, scripted } = setup();
    const loggers = new Set<unknown>();
    const doGetStatus = scripted.adapter.doGetStatus.bind(scripted.adapter);
    scripted.adapter.doGetStatus = (ref, context) => {
      loggers.add(context.logger);
      return doGetStatus(ref, context);
    };
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    await service.getTask(created.taskId, alice);
    await service.getTask(created.taskId, alice);
    expect(loggers.size).toBe(1);
  });

  it("does not open ids of an adapter instance the server no longer has", async () => {
    const { service } = setup();
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    const renamed = new TaskService({
      adapters: [{ name: "renamed", adapter: createScriptedAdapter().adapter }],
      sealer: new TaskIdSealer({ secret }),
      logger: createSilentLogger(),
    });
    await expectProtocolError(renamed.getTask(created.taskId, alice), -32602, /Task not found/);
  });
});

describe("TaskService.updateTask", () => {
  it("delivers only answers to outstanding keys, and ignores the rest", async () => {
    const { service, scripted } = setup();
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    const job = scripted.onlyJob();
    scripted.update(job, inputRequiredSnapshot({ "deploy-1": approvalRequest(), "deploy-2": approvalRequest() }));
    await service.updateTask(
      created.taskId,
      { "deploy-1": { action: "accept", content: { approve: true } }, unknown: { action: "accept" } },
      alice,
    );
    expect(job.responses).toEqual([{ "deploy-1": { action: "accept", content: { approve: true } } }]);
    await service.updateTask(created.taskId, { "never-issued": { action: "decline" } }, alice);
    expect(scripted.calls.respond).toBe(1);
  });

  it("ignores every answer while the job is not waiting for input", async () => {
    const { service, scripted } = setup();
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    await service.updateTask(created.taskId, { anything: { action: "accept" } }, alice);
    expect(scripted.calls.respond).toBe(0);
  });

  it("refuses a malformed answer to an outstanding key with -32602 naming it", async () => {
    const { service, scripted } = setup();
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    scripted.update(scripted.onlyJob(), inputRequiredSnapshot({ approval: approvalRequest() }));
    await expectProtocolError(
      service.updateTask(created.taskId, { approval: { action: "maybe" } }, alice),
      -32602,
      /inputResponses\.approval\.action/,
    );
    await expectProtocolError(
      service.updateTask(created.taskId, { approval: { action: "accept", content: "yes" } }, alice),
      -32602,
      /inputResponses\.approval\.content/,
    );
  });

  it("passes an adapter's refusal of an answer's content on as -32602 naming the field", async () => {
    const { service, scripted } = setup();
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    scripted.update(scripted.onlyJob(), inputRequiredSnapshot({ approval: approvalRequest() }));
    scripted.adapter.doRespond = async () => {
      throw new InvalidToolInputError("approval.approve", "expected a boolean");
    };
    const error = await expectProtocolError(
      service.updateTask(created.taskId, { approval: { action: "accept", content: { approve: "yes" } } }, alice),
      -32602,
    );
    expect(error.message).toBe("Invalid params: inputResponses: approval.approve: expected a boolean");
  });

  it("sends an answer once, even when the upstream answers 503: approving twice may not be harmless", async () => {
    const { service, scripted } = setup();
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    scripted.update(scripted.onlyJob(), inputRequiredSnapshot({ approval: approvalRequest() }));
    let calls = 0;
    scripted.adapter.doRespond = async () => {
      calls += 1;
      throw new UpstreamError("HTTP 503", { httpStatus: 503 });
    };
    await expectProtocolError(
      service.updateTask(created.taskId, { approval: { action: "accept", content: { approve: true } } }, alice),
      -32603,
    );
    expect(calls).toBe(1);
  });

  it("reports a failed delivery as -32603 so the client can try again", async () => {
    const { service, scripted } = setup();
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    scripted.update(scripted.onlyJob(), inputRequiredSnapshot({ approval: approvalRequest() }));
    scripted.adapter.doRespond = async () => {
      throw new UpstreamError("HTTP 422: deployment review is no longer pending", { httpStatus: 422 });
    };
    await expectProtocolError(
      service.updateTask(created.taskId, { approval: { action: "accept", content: { approve: true } } }, alice),
      -32603,
      /deliver the answer: HTTP 422/,
    );
  });
});

describe("TaskService answers that leave the question open", () => {
  const approve = { action: "accept", content: { approve: true } };

  it("a dismissed form (cancel) reaches the adapter and leaves the key open: a later approval is delivered", async () => {
    const { service, scripted } = setup();
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    const job = scripted.onlyJob();
    scripted.update(job, inputRequiredSnapshot({ approval: approvalRequest() }));
    expect(await service.updateTask(created.taskId, { approval: { action: "cancel" } }, alice)).toEqual(["approval"]);
    expect(service.wasAnswered(created.taskId, "approval", alice.principal)).toBe(false);
    expect(await service.updateTask(created.taskId, { approval: approve }, alice)).toEqual(["approval"]);
    expect(job.responses).toEqual([{ approval: { action: "cancel" } }, { approval: approve }]);
  });

  it("an answer the adapter reports as left open (a decline that keeps the job waiting) takes a later answer", async () => {
    const { service, scripted } = setup({
      onRespond: (_job, responses) => ({
        leftOpen: Object.keys(responses).filter((key) => responses[key]!.action === "decline"),
      }),
    });
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    const job = scripted.onlyJob();
    scripted.update(job, inputRequiredSnapshot({ play: approvalRequest(), approval: approvalRequest() }));
    await service.updateTask(created.taskId, { play: { action: "decline" }, approval: approve }, alice);
    expect(service.wasAnswered(created.taskId, "play", alice.principal)).toBe(false);
    expect(service.wasAnswered(created.taskId, "approval", alice.principal)).toBe(true);
    // The upstream still lists both: only the open one takes an answer, the settled one is sent once.
    await service.updateTask(created.taskId, { play: approve, approval: approve }, alice);
    expect(job.responses).toEqual([{ play: { action: "decline" }, approval: approve }, { play: approve }]);
  });

  it("a refusal by the upstream reaches the caller saying why, and the question stays open", async () => {
    const { service, scripted } = setup();
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    const job = scripted.onlyJob();
    scripted.update(job, inputRequiredSnapshot({ approval: approvalRequest() }));
    let refuse = true;
    scripted.adapter.doRespond = async (_ref, responses) => {
      if (refuse) throw new UpstreamError("GitLab refused the answer: You don't have permission", { httpStatus: 400 });
      job.responses.push(responses);
    };
    await expectProtocolError(
      service.updateTask(created.taskId, { approval: approve }, alice),
      -32603,
      /Could not deliver the answer: GitLab refused the answer: You don't have permission/,
    );
    const task = await service.getTask(created.taskId, alice);
    expect(task.status).toBe("input_required");
    refuse = false;
    expect(await service.updateTask(created.taskId, { approval: approve }, alice)).toEqual(["approval"]);
  });
});

describe("TaskService.getTask after an answer", () => {
  const approve = { action: "accept", content: { approve: true } };

  it("does not list a question this process answered while the upstream still lists it", async () => {
    const { service, scripted } = setup();
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    scripted.update(scripted.onlyJob(), inputRequiredSnapshot({ first: approvalRequest(), second: approvalRequest() }));
    await service.updateTask(created.taskId, { first: approve }, alice);
    const one = await service.getTask(created.taskId, alice);
    expect(one.status).toBe("input_required");
    expect(Object.keys(one.status === "input_required" ? one.inputRequests : {})).toEqual(["second"]);

    await service.updateTask(created.taskId, { second: approve }, alice);
    const none = await service.getTask(created.taskId, alice);
    expect(none.status).toBe("working");
    expect(none).not.toHaveProperty("inputRequests");
    expect(none.statusMessage).toMatch(/answer/i);
  });

  it("lists a question again when its answer did not settle it (a dismissed form)", async () => {
    const { service, scripted } = setup();
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    scripted.update(scripted.onlyJob(), inputRequiredSnapshot({ approval: approvalRequest() }));
    await service.updateTask(created.taskId, { approval: { action: "cancel" } }, alice);
    const task = await service.getTask(created.taskId, alice);
    expect(task.status).toBe("input_required");
    expect(Object.keys(task.status === "input_required" ? task.inputRequests : {})).toEqual(["approval"]);
  });

  it("lists it again once the ledger forgets it, if the upstream still asks", async () => {
    let now = 1_000_000;
    const { service, scripted } = setup({ now: () => now });
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    scripted.update(scripted.onlyJob(), inputRequiredSnapshot({ approval: approvalRequest() }));
    await service.updateTask(created.taskId, { approval: approve }, alice);
    expect((await service.getTask(created.taskId, alice)).status).toBe("working");
    now += 11 * 60_000;
    expect((await service.getTask(created.taskId, alice)).status).toBe("input_required");
  });
});

describe("TaskService.cancelTask", () => {
  it("asks the upstream to cancel a running job", async () => {
    const { service, scripted } = setup({ onCancel: (job) => scripted.update(job, cancelledSnapshot()) });
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    await service.cancelTask(created.taskId, alice);
    expect(scripted.onlyJob().cancelRequested).toBe(true);
    expect((await service.getTask(created.taskId, alice)).status).toBe("cancelled");
  });

  it("acknowledges without calling the upstream when the task already ended", async () => {
    const { service, scripted } = setup();
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    scripted.update(scripted.onlyJob(), completedSnapshot());
    await service.cancelTask(created.taskId, alice);
    expect(scripted.calls.cancel).toBe(0);
    expect((await service.getTask(created.taskId, alice)).status).toBe("completed");
  });

  it("acknowledges a cancel for an adapter that cannot cancel, and the task goes on", async () => {
    const { service, scripted } = setup({ canCancel: false });
    const created = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
    await service.cancelTask(created.taskId, alice);
    expect((await service.getTask(created.taskId, alice)).status).toBe("working");
    expect(scripted.calls.cancel).toBe(0);
  });
});
