import { describe, expect, it, vi } from "vitest";
import {
  AnswersPartlySettledError,
  ConfigError,
  JobNotFoundError,
  UpstreamError,
  type CallToolResult,
  type InputRequest,
  z,
} from "@jobtasks/core";
import { TaskIdSealer } from "./task-id.js";
import { TaskProtocolError } from "./protocol-error.js";
import { createSilentLogger } from "./logger.js";
import { TaskService, type CallerContext, type TaskServiceOptions } from "./task-service.js";
import {
  approvalRequest,
  cancelledSnapshot,
  completedSnapshot,
  createScriptedAdapter,
  inputRequiredSnapshot,
  workingSnapshot,
  type ScriptedAdapterOptions,
} from "../../../test/support/scripted-adapter.js";

/** The handle tools on the task service, without MCP around them: what a client without the extension gets. */

function setup(options: ScriptedAdapterOptions & { service?: Partial<TaskServiceOptions> } = {}) {
  const scripted = createScriptedAdapter({ pollIntervalMs: 5, ...options });
  const service = new TaskService({
    adapters: [{ name: "scripted", adapter: scripted.adapter }],
    sealer: new TaskIdSealer({ secret: "handle-tools-test-secret-0123456789abcdef" }),
    logger: createSilentLogger(),
    snapshotCacheMs: 0,
    immediateRetryDelayMs: 1,
    ...options.service,
  });
  return { scripted, service };
}

const alice: CallerContext = { principal: "alice", signal: new AbortController().signal };
const call = async (
  service: TaskService,
  name: string,
  args: unknown,
  caller: CallerContext & { onProgress?: (message: string) => void } = alice,
) =>
  (await service.callTool(name, args, { ...caller, tasksDeclared: false })) as CallToolResult & {
    structuredContent: Record<string, any>;
  };
const text = (result: CallToolResult) =>
  result.content.map((block) => (block as { text?: string }).text ?? "").join("\n");

describe("tools/list for a request without the extension", () => {
  it("adds task_status, task_answer and task_cancel, and leaves out job tools' output schemas; a declaring request sees neither change", () => {
    const scripted = createScriptedAdapter();
    // Tool descriptors are computed when the service is built: give the tool an output schema first.
    scripted.adapter.tools[0]!.outputSchema = z.object({ text: z.string() });
    const withSchema = new TaskService({
      adapters: [{ name: "scripted", adapter: scripted.adapter }],
      sealer: new TaskIdSealer({ secret: "x".repeat(40) }),
      logger: createSilentLogger(),
    });
    const plain = withSchema.listTools(false);
    expect(plain.map((tool) => tool.name)).toEqual(["scripted_job", "task_status", "task_answer", "task_cancel"]);
    expect(plain[0]).not.toHaveProperty("outputSchema");
    for (const tool of plain.slice(1)) expect(tool.outputSchema).toMatchObject({ type: "object" });
    const declared = withSchema.listTools(true);
    expect(declared.map((tool) => tool.name)).toEqual(["scripted_job"]);
    expect(declared[0]).toHaveProperty("outputSchema");
  });

  it("lists no handle tools under wait or refuse", () => {
    for (const clientsWithoutTasks of ["wait", "refuse"] as const) {
      expect(
        setup({ service: { clientsWithoutTasks } })
          .service.listTools(false)
          .map((tool) => tool.name),
      ).toEqual(["scripted_job"]);
    }
  });

  it("refuses an adapter tool named like a handle tool, naming both, unless handles are off", () => {
    expect(() => setup({ toolName: "task_status" })).toThrow(ConfigError);
    expect(() => setup({ toolName: "task_cancel" })).toThrow(
      /tool "task_cancel" of adapter "scripted" clashes with the server's own tool "task_cancel"/,
    );
    expect(() => setup({ toolName: "task_answer", service: { clientsWithoutTasks: "wait" } })).not.toThrow();
  });
});

describe("a job tool called without the extension", () => {
  it("answers a handle whose taskId tasks/get accepts; the job keeps running", async () => {
    const { service, scripted } = setup();
    const handle = await call(service, "scripted_job", { label: "build" });
    expect(handle.isError).toBeUndefined();
    expect(handle.structuredContent).toEqual({
      taskId: expect.stringMatching(/^jt1\./),
      status: "working",
      statusMessage: "started build",
      pollIntervalMs: 5,
      next: {
        tool: "task_status",
        arguments: { taskId: handle.structuredContent.taskId },
        description: expect.any(String),
      },
    });
    expect(text(handle)).toContain(`task_status with {"taskId":"${handle.structuredContent.taskId}"}`);
    expect((await service.getTask(handle.structuredContent.taskId, alice)).status).toBe("working");
    expect(scripted.onlyJob().cancelRequested).toBe(false);
  });

  it("answers the job's own result when it finishes within synchronousWaitMs", async () => {
    const { service, scripted } = setup({ synchronousWaitMs: 10_000 });
    const pending = call(service, "scripted_job", {});
    await vi.waitUntil(() => scripted.calls.getStatus >= 1, { timeout: 5_000, interval: 2 });
    scripted.update(scripted.onlyJob(), completedSnapshot("quick"));
    expect(await pending).toEqual({ content: [{ type: "text", text: "quick" }], structuredContent: { text: "quick" } });
  });

  it("answers with a handle at once when the job asks a question during the quick wait", async () => {
    const { service } = setup({ synchronousWaitMs: 10_000 });
    const handle = await call(service, "scripted_job", { startAs: "input_required" });
    expect(handle.structuredContent).toMatchObject({
      status: "input_required",
      inputRequests: { "job-1-approval-1": approvalRequest() },
    });
    expect(text(handle)).toContain('task_answer {"taskId":"');
  });

  it("waits at most 30 s in all, whatever synchronousWaitMs says", async () => {
    // The clock jumps 31 s while the job starts: with the 30 s cap nothing is left to wait for.
    let offset = 0;
    const { service, scripted } = setup({ synchronousWaitMs: 600_000, service: { now: () => Date.now() + offset } });
    const tool = scripted.adapter.tools[0]!;
    const start = tool.doStart.bind(tool);
    tool.doStart = async (input, context) => {
      const started = await start(input, context);
      offset = 31_000;
      return started;
    };
    const handle = await call(service, "scripted_job", {});
    expect(handle.structuredContent["status"]).toBe("working");
    expect(scripted.calls.getStatus).toBe(1);
  });

  it("cancels the job only when the client leaves before it got the id", async () => {
    const { service, scripted } = setup({ synchronousWaitMs: 10_000 });
    const controller = new AbortController();
    const pending = call(service, "scripted_job", {}, { principal: "alice", signal: controller.signal });
    await vi.waitUntil(() => scripted.calls.getStatus >= 1, { timeout: 5_000, interval: 2 });
    controller.abort(new Error("client closed the connection"));
    await expect(pending).rejects.toThrow();
    expect(scripted.onlyJob().cancelRequested).toBe(true);
  });
});

describe("what a host that shows the model only structuredContent reads", () => {
  // Codex (and Claude Code, for a result that is not an error) hands the model a tool result's
  // structuredContent and drops its text: each answer's JSON carries the status and the next call, and
  // says nothing the model would have to guess.
  const followUp = (taskId: string) => ({
    tool: "task_status",
    arguments: { taskId },
    description: expect.stringContaining("task_status"),
  });

  it("a handle and a working task_status name task_status with the taskId as the next call", async () => {
    const { service } = setup();
    const handle = await call(service, "scripted_job", {});
    const { taskId } = handle.structuredContent;
    expect(handle.structuredContent["next"]).toEqual(followUp(taskId));
    expect(handle.structuredContent["next"].description).toMatch(/waits up to 40 s.*"working"/);
    const working = await call(service, "task_status", { taskId, waitSeconds: 0 });
    expect(working.structuredContent["next"]).toEqual(followUp(taskId));
  });

  it("a question names task_answer with the taskId and key, and leaves the decision to the caller", async () => {
    const { service } = setup();
    const handle = await call(service, "scripted_job", { startAs: "input_required" });
    const { taskId } = handle.structuredContent;
    expect(handle.structuredContent["next"]).toEqual({
      tool: "task_answer",
      arguments: { taskId, key: "job-1-approval-1" },
      description: expect.stringMatching(/action "accept" with content.*requestedSchema.*"decline"/),
    });
  });

  it("a sent answer says the job goes on and names task_status; a refused one gives the job's status", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", { startAs: "input_required" })).structuredContent;
    const key = "job-1-approval-1";
    const sent = await call(service, "task_answer", { taskId, key, action: "accept", content: { approve: true } });
    // The only question answered: this process knows the job works on (the upstream may still list it).
    expect(sent.structuredContent).toEqual({
      taskId,
      key,
      action: "accept",
      sent: true,
      status: "working",
      next: followUp(taskId),
    });
    expect(sent.structuredContent["next"].description).toMatch(/goes on/);
    scripted.update(scripted.onlyJob(), workingSnapshot("deploying"));
    const again = await call(service, "task_answer", { taskId, key, action: "decline" });
    expect(again.structuredContent).toEqual({
      taskId,
      key,
      action: "decline",
      sent: false,
      status: "working",
      next: followUp(taskId),
    });
  });

  it("a sent answer that ended the job says so, and names task_status for its outcome, not for what comes next", async () => {
    const { service } = setup({
      // A declined approval ends the pipeline, as the demo's does.
      onRespond: (job) => void (job.snapshot = completedSnapshot("rejected: not deployed")),
    });
    const { taskId } = (await call(service, "scripted_job", { startAs: "input_required" })).structuredContent;
    const key = "job-1-approval-1";
    const sent = await call(service, "task_answer", { taskId, key, action: "decline" });
    expect(sent.structuredContent).toMatchObject({ taskId, key, action: "decline", sent: true, status: "completed" });
    expect(sent.structuredContent["next"]).toEqual(followUp(taskId));
    expect(sent.structuredContent["next"].description).toMatch(/ended \(completed\).*outcome/);
    expect(sent.structuredContent["next"].description).not.toMatch(/goes on/);
    expect(sent.content[0]).toMatchObject({ text: expect.stringMatching(/the job has ended \(completed\)/) });
  });

  it("a sent answer stays a sent answer when the read after it fails: the status is left out, not the answer", async () => {
    const { service, scripted } = setup({
      onRespond: () => {
        scripted.adapter.doGetStatus = async () => {
          throw new JobNotFoundError("the upstream forgot the job");
        };
      },
    });
    const { taskId } = (await call(service, "scripted_job", { startAs: "input_required" })).structuredContent;
    const key = "job-1-approval-1";
    const sent = await call(service, "task_answer", { taskId, key, action: "accept", content: { approve: true } });
    expect(sent.isError).toBeUndefined();
    expect(sent.structuredContent).toEqual({ taskId, key, action: "accept", sent: true, next: followUp(taskId) });
  });

  it("a requested cancel names task_status to see how the job ends; a finished job names none", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    expect((await call(service, "task_cancel", { taskId })).structuredContent["next"]).toEqual(followUp(taskId));
    scripted.update(scripted.onlyJob(), completedSnapshot("done"));
    const finished = await call(service, "task_status", { taskId });
    expect(finished.structuredContent).not.toHaveProperty("next");
  });

  it("task_cancel on a job that had ended answers how it ended, with its result, and names no next call", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    scripted.update(scripted.onlyJob(), completedSnapshot("done"));
    const ended = await call(service, "task_cancel", { taskId });
    expect(ended.isError).toBeUndefined();
    expect(ended.structuredContent).toMatchObject({
      taskId,
      status: "completed",
      cancelRequested: false,
      result: { text: "done" },
    });
    expect(ended.structuredContent).not.toHaveProperty("next");
    expect(text(ended)).toMatch(/already ended \(completed\); nothing to cancel/);
    expect(text(ended)).toContain("done");
    expect(text(ended)).not.toMatch(/Next:/);
    expect(scripted.calls.cancel).toBe(0);
  });

  it('a busy first answer asks for task_status after the poll interval, not "again" before any call', async () => {
    const { service } = setup({ synchronousWaitMs: 1_000, service: { maxWaitingCalls: 0 } });
    const handle = await call(service, "scripted_job", {});
    const { taskId } = handle.structuredContent;
    expect(text(handle)).toContain("The server is busy");
    expect(text(handle)).not.toMatch(/again/);
    expect(handle.structuredContent["next"]).toEqual(followUp(taskId));
    expect(handle.structuredContent["next"].description).toMatch(/busy.*wait about 5 ms/);
    expect(handle.structuredContent["next"].description).not.toMatch(/again/);
  });
});

describe("what a host that shows the model only the text of an error reads", () => {
  // Claude Code shows the model an isError result's text, not its structuredContent: the text states the
  // same next call as the JSON, tool and exact arguments, from one generator.
  const nextLine = (next: { tool: string; arguments: Record<string, unknown> }) =>
    `Next: call ${next.tool} ${JSON.stringify(next.arguments)}`;

  it("an answer to a question already answered states task_status and the taskId in its text", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", { startAs: "input_required" })).structuredContent;
    const key = "job-1-approval-1";
    await call(service, "task_answer", { taskId, key, action: "accept", content: { approve: true } });
    scripted.update(scripted.onlyJob(), workingSnapshot("deploying"));
    const again = await call(service, "task_answer", { taskId, key, action: "accept", content: { approve: true } });
    expect(again.isError).toBe(true);
    expect(text(again)).toContain(`Next: call task_status {"taskId":"${taskId}"}`);
    expect(text(again)).toContain(nextLine(again.structuredContent["next"]));
  });

  it("an answer under a wrong key names the open question's key as the next call, in the text and the JSON", async () => {
    const { service } = setup();
    const { taskId } = (await call(service, "scripted_job", { startAs: "input_required" })).structuredContent;
    const wrong = await call(service, "task_answer", { taskId, key: "no-such-key", action: "decline" });
    expect(wrong.isError).toBe(true);
    expect(wrong.structuredContent["next"]).toMatchObject({
      tool: "task_answer",
      arguments: { taskId, key: "job-1-approval-1" },
    });
    expect(text(wrong)).toContain(`Outstanding now: job-1-approval-1.`);
    expect(text(wrong)).toContain(`Next: call task_answer {"taskId":"${taskId}","key":"job-1-approval-1"}`);
  });

  it("every answer that has a next call states it in its text too, as the JSON has it", async () => {
    const { service, scripted } = setup();
    const handle = await call(service, "scripted_job", { startAs: "input_required" });
    const { taskId } = handle.structuredContent;
    const key = "job-1-approval-1";
    const answers = [
      handle,
      await call(service, "task_status", { taskId, waitSeconds: 0 }),
      await call(service, "task_answer", { taskId, key, action: "accept", content: { approve: true } }),
      await call(service, "task_cancel", { taskId }),
    ];
    scripted.update(scripted.onlyJob(), workingSnapshot("deploying"));
    answers.push(await call(service, "task_status", { taskId, waitSeconds: 0 }));
    for (const answer of answers) {
      expect(answer.structuredContent["next"]).toBeDefined();
      expect(text(answer)).toContain(nextLine(answer.structuredContent["next"]));
    }
  });
});

describe("task_status", () => {
  it("waits through progress messages (sent on as progress) until the job finishes, then answers its result", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    const job = scripted.onlyJob();
    const progress: string[] = [];
    const pending = call(
      service,
      "task_status",
      { taskId },
      { ...alice, onProgress: (message) => progress.push(message) },
    );
    await vi.waitUntil(() => scripted.calls.getStatus >= 3, { timeout: 5_000, interval: 2 });
    scripted.update(job, workingSnapshot("step 2/2"));
    await vi.waitUntil(() => progress.length === 1, { timeout: 5_000, interval: 2 });
    scripted.update(job, completedSnapshot("all green"));
    const result = await pending;
    expect(progress).toEqual(["step 2/2"]);
    expect(result.isError).toBeUndefined();
    expect(result.content).toEqual([{ type: "text", text: "all green" }]);
    expect(result.structuredContent).toEqual({
      taskId,
      status: "completed",
      statusMessage: "the job succeeded",
      pollIntervalMs: 5,
      result: { text: "all green" },
    });
  });

  it("carries the job's own isError, and isError for a failed task", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    scripted.update(scripted.onlyJob(), completedSnapshot("red build", true));
    expect((await call(service, "task_status", { taskId })).isError).toBe(true);
    const second = (await call(service, "scripted_job", {})).structuredContent.taskId;
    // An upstream that refuses to report the job (a revoked token) ends it failed; a job it no longer knows
    // would read as expired instead.
    scripted.failReads(
      scripted.lastJob(),
      new UpstreamError("access to job 2 was revoked", { httpStatus: 403, isRetryable: false }),
    );
    const failed = await call(service, "task_status", { taskId: second, waitSeconds: 0 });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toMatchObject({ status: "failed", error: { code: -32603 } });
    expect(text(failed)).toMatch(/^scripted_job failed: /);
  });

  it("says the server is busy, and to wait pollIntervalMs, when every wait slot is taken", async () => {
    const { service } = setup({ service: { maxWaitingCalls: 0 } });
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    const result = await call(service, "task_status", { taskId });
    expect(result.structuredContent["status"]).toBe("working");
    expect(text(result)).toBe(
      `scripted_job is still running (started job). The server is busy (every wait is taken), so this call did not wait: ` +
        `wait about 5 ms, then call task_status with {"taskId":"${taskId}"} again. To stop the job, call task_cancel with the same taskId.\n` +
        `Next: call task_status {"taskId":"${taskId}"}. ${result.structuredContent["next"].description}`,
    );
    // A call that asked for no wait was not held back: it reads as usual.
    expect(text(await call(service, "task_status", { taskId, waitSeconds: 0 }))).toMatch(/each call waits up to 40 s/);
  });

  it('says a cancelled job was cancelled once, not "cancelled (cancelled)"', async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    scripted.update(scripted.lastJob(), cancelledSnapshot());
    expect(text(await call(service, "task_status", { taskId }))).toBe("scripted_job was cancelled; it has no result.");
    // A second job: an ended job's snapshot is kept, so the first one's cannot change.
    const second = (await call(service, "scripted_job", {})).structuredContent.taskId;
    scripted.update(scripted.lastJob(), { ...cancelledSnapshot(), message: "cancelled by alice" });
    expect(text(await call(service, "task_status", { taskId: second }))).toBe(
      "scripted_job was cancelled (cancelled by alice); it has no result.",
    );
  });

  it("answers after waitSeconds with the job still working", async () => {
    const { service } = setup();
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    const result = await call(service, "task_status", { taskId, waitSeconds: 0.1 });
    expect(result.structuredContent["status"]).toBe("working");
    expect(text(result)).toMatch(/still running.*call task_status/);
  });

  it("answers Task not found for a forged or another caller's id, and refuses bad arguments naming the field, reading nothing", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    const reads = scripted.calls.getStatus;
    for (const [args, caller] of [
      [{ taskId: taskId.slice(0, -3) + "AAA" }, alice],
      [{ taskId }, { principal: "bob", signal: alice.signal }],
    ] as const) {
      const result = await call(service, "task_status", args, caller);
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/Task not found/);
    }
    for (const [name, args, field] of [
      ["task_status", { taskId, waitSeconds: 51 }, "waitSeconds"],
      ["task_status", {}, "taskId"],
      ["task_answer", { taskId, key: "k", action: "approve" }, "action"],
      ["task_answer", { taskId, key: "k", action: "accept", content: "yes" }, "content"],
      // As JSON.parse reads it off the wire: an own property zod's record would skip and then drop.
      [
        "task_answer",
        JSON.parse(`{"taskId":"${taskId}","key":"k","action":"accept","content":{"__proto__":{"approve":true}}}`),
        "content.__proto__",
      ],
      ["task_cancel", { taskId: 7 }, "taskId"],
    ] as const) {
      const result = await call(service, name, args);
      expect(result.isError, name).toBe(true);
      expect(text(result), name).toContain(`Invalid arguments for tool ${name}: ${field}:`);
    }
    expect(scripted.calls.getStatus).toBe(reads);
    expect(scripted.calls.respond + scripted.calls.cancel).toBe(0);
  });
});

describe("task_answer and task_cancel", () => {
  it("refuses an answer that does not fit the form, naming the field, and sends nothing; a good one is sent once", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", { startAs: "input_required" })).structuredContent;
    const key = "job-1-approval-1";
    const bad = await call(service, "task_answer", { taskId, key, action: "accept", content: { approve: "yes" } });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/content\.approve: .*Nothing was sent/);
    const missing = await call(service, "task_answer", { taskId, key, action: "accept", content: {} });
    expect(text(missing)).toMatch(/content\.approve/);
    expect(scripted.calls.respond).toBe(0);

    const sent = await call(service, "task_answer", {
      taskId,
      key,
      action: "accept",
      content: { approve: true, comment: "ship it" },
    });
    expect(sent.isError).toBeUndefined();
    expect(sent.structuredContent).toMatchObject({ taskId, key, action: "accept", sent: true });
    expect(scripted.onlyJob().responses).toEqual([
      { [key]: { action: "accept", content: { approve: true, comment: "ship it" } } },
    ]);

    // The upstream recorded it: the key is no longer outstanding, and a second answer sends nothing.
    scripted.update(scripted.onlyJob(), workingSnapshot("deploying"));
    const again = await call(service, "task_answer", { taskId, key, action: "decline" });
    expect(again.isError).toBe(true);
    expect(text(again)).toMatch(/not outstanding.*nothing was sent/);
    expect(scripted.calls.respond).toBe(1);
  });

  it("refuses an accept that leaves out a required field even when the form gives it a default; nothing is sent", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    scripted.update(scripted.onlyJob(), inputRequiredSnapshot({ gate: approvalWithDefault() }));
    for (const content of [{}, undefined, { comment: "fine" }]) {
      const refused = await call(service, "task_answer", {
        taskId,
        key: "gate",
        action: "accept",
        ...(content ? { content } : {}),
      });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toBe(
        "Invalid answer to question gate of scripted_job: content.approve: required, and missing from the answer. Nothing was sent; correct it and call task_answer again.",
      );
    }
    // Nor does a default fill in an optional field the answer left out.
    await call(service, "task_answer", { taskId, key: "gate", action: "accept", content: { approve: false } });
    expect(scripted.onlyJob().responses).toEqual([{ gate: { action: "accept", content: { approve: false } } }]);
  });

  it("tasks/update: an accept without a required field is -32602 naming it, and nothing is sent", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    scripted.update(
      scripted.onlyJob(),
      inputRequiredSnapshot({ gate: approvalWithDefault(), other: approvalRequest() }),
    );
    const refused = service.updateTask(
      taskId,
      { other: { action: "decline" }, gate: { action: "accept", content: { comment: "fine" } } },
      alice,
    );
    await expect(refused).rejects.toThrow(TaskProtocolError);
    await expect(refused).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("inputResponses.gate.content.approve"),
    });
    expect(scripted.calls.respond).toBe(0);
  });

  it("tasks/update: a __proto__ field in an answer's content is -32602 naming it, and nothing is sent", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    scripted.update(scripted.onlyJob(), inputRequiredSnapshot({ gate: approvalRequest() }));
    const content = JSON.parse('{"approve":true,"__proto__":{"approve":false}}') as Record<string, unknown>;
    const refused = service.updateTask(taskId, { gate: { action: "accept", content } }, alice);
    await expect(refused).rejects.toMatchObject({
      code: -32602,
      data: { field: "inputResponses.gate.content.__proto__" },
    });
    expect(scripted.calls.respond).toBe(0);
  });

  it("sends decline and cancel without content", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", { startAs: "input_required" })).structuredContent;
    scripted.update(scripted.onlyJob(), inputRequiredSnapshot({ a: approvalRequest(), b: approvalRequest() }));
    await call(service, "task_answer", { taskId, key: "a", action: "decline", content: { approve: true } });
    await call(service, "task_answer", { taskId, key: "b", action: "cancel" });
    expect(scripted.onlyJob().responses).toEqual([{ a: { action: "decline" } }, { b: { action: "cancel" } }]);
  });

  it("a dismissed answer (cancel) leaves the question open: task_status still lists it and a later approval is sent", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    scripted.update(scripted.onlyJob(), inputRequiredSnapshot({ gate: approvalRequest() }));
    const dismissed = await call(service, "task_answer", { taskId, key: "gate", action: "cancel" });
    expect(text(dismissed)).toContain("The question is still open: answer it again with task_answer once decided.");
    // What a host that shows only structuredContent reads: still open, and the call that answers it.
    expect(dismissed.structuredContent).toEqual({
      taskId,
      key: "gate",
      action: "cancel",
      sent: true,
      status: "input_required",
      questionOpen: true,
      next: {
        tool: "task_answer",
        arguments: { taskId, key: "gate" },
        description: expect.stringMatching(/still open.*task_answer.*task_status/),
      },
    });
    const status = await call(service, "task_status", { taskId, waitSeconds: 0 });
    expect(status.structuredContent["status"]).toBe("input_required");
    const approved = await call(service, "task_answer", {
      taskId,
      key: "gate",
      action: "accept",
      content: { approve: true },
    });
    expect(approved.structuredContent["sent"]).toBe(true);
    expect(scripted.onlyJob().responses).toEqual([
      { gate: { action: "cancel" } },
      { gate: { action: "accept", content: { approve: true } } },
    ]);
  });

  it("an upstream refusal is a tool error saying why, and the question stays outstanding", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    scripted.update(scripted.onlyJob(), inputRequiredSnapshot({ gate: approvalRequest() }));
    scripted.adapter.doRespond = async () => {
      throw new UpstreamError("GitLab refused the answer: You don't have permission to approve this deployment", {
        httpStatus: 400,
      });
    };
    const refused = await call(service, "task_answer", {
      taskId,
      key: "gate",
      action: "accept",
      content: { approve: true },
    });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe(
      "Could not deliver the answer: GitLab refused the answer: You don't have permission to approve this deployment",
    );
    const status = await call(service, "task_status", { taskId, waitSeconds: 0 });
    expect(status.structuredContent["status"]).toBe("input_required");
    expect(text(status)).toContain("gate");
  });

  it("an upstream refusal after it took another answer of the batch: the refusal is the caller's, the taken answer is sent once", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    scripted.update(scripted.onlyJob(), inputRequiredSnapshot({ first: approvalRequest(), second: approvalRequest() }));
    const delivered: string[][] = [];
    scripted.adapter.doRespond = async (_ref, responses) => {
      delivered.push(Object.keys(responses));
      if (!("second" in responses)) return;
      throw new AnswersPartlySettledError(
        Object.keys(responses).filter((key) => key !== "second"),
        new UpstreamError("GitLab refused the approval of the deployment: no permission", { httpStatus: 400 }),
      );
    };
    const approve = { action: "accept", content: { approve: true } };
    const refused = service.updateTask(taskId, { first: approve, second: approve }, alice);
    await expect(refused).rejects.toMatchObject({
      code: -32603,
      message: "Could not deliver the answer: GitLab refused the approval of the deployment: no permission",
    });
    expect(service.wasAnswered(taskId, "first", "alice")).toBe(true);
    expect(service.wasAnswered(taskId, "second", "alice")).toBe(false);
    // The taken answer is not sent again; the refused one may be answered again.
    await service.updateTask(taskId, { first: approve }, alice);
    expect(delivered).toEqual([["first", "second"]]);
    const status = await call(service, "task_status", { taskId, waitSeconds: 0 });
    expect(Object.keys(status.structuredContent["inputRequests"])).toEqual(["second"]);
  });

  it("task_status does not list a question answered from this process while the upstream still lists it", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    scripted.update(scripted.onlyJob(), inputRequiredSnapshot({ gate: approvalRequest() }));
    await call(service, "task_answer", { taskId, key: "gate", action: "accept", content: { approve: true } });
    const status = await call(service, "task_status", { taskId, waitSeconds: 0 });
    expect(status.structuredContent["status"]).toBe("working");
    expect(text(status)).not.toContain("task_answer");
  });

  it("task_cancel requests the cancel and says it was requested; an ended job is left alone", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    const requested = await call(service, "task_cancel", { taskId });
    expect(requested.structuredContent).toMatchObject({ taskId, status: "working", cancelRequested: true });
    expect(text(requested)).toMatch(/requested.*may still finish/);
    expect(scripted.calls.cancel).toBe(1);
    scripted.update(scripted.onlyJob(), completedSnapshot());
    expect((await call(service, "task_cancel", { taskId })).structuredContent).toMatchObject({
      taskId,
      status: "completed",
      cancelRequested: false,
    });
    expect(scripted.calls.cancel).toBe(1);
  });
});

describe("concurrent answers to one question", () => {
  it("are sent once: one answer reaches the upstream, the others (task_answer and tasks/update) are told it was already answered", async () => {
    // An upstream whose status lags behind its answers: it lists the question still after the first answer.
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", { startAs: "input_required" })).structuredContent;
    const key = "job-1-approval-1";
    const respond = scripted.adapter.doRespond!.bind(scripted.adapter);
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    scripted.adapter.doRespond = async (ref, responses, context) => {
      await respond(ref, responses, context);
      await slow;
    };
    // Two connections of one caller: their own request lifetimes.
    const other = { principal: "alice", signal: new AbortController().signal };
    const decisions = [true, false, true, false];
    const answers = decisions.map((approve, index) =>
      call(
        service,
        "task_answer",
        { taskId, key, action: "accept", content: { approve } },
        index % 2 === 0 ? alice : other,
      ),
    );
    await vi.waitUntil(() => scripted.calls.respond === 1, { timeout: 5_000, interval: 2 });
    // tasks/update while the first delivery is under way: it waits for it, then finds the key answered.
    const update = service.updateTask(taskId, { [key]: { action: "decline" } }, alice);
    release();
    const results = await Promise.all(answers);
    expect(await update).toEqual([]);
    expect(scripted.calls.respond).toBe(1);
    const sent = results.map((result) => result.structuredContent["sent"]);
    expect(sent.filter(Boolean)).toHaveLength(1);
    const winner = sent.indexOf(true);
    expect(scripted.onlyJob().responses).toEqual([
      { [key]: { action: "accept", content: { approve: decisions[winner] } } },
    ]);
    for (const result of results.filter((_result, index) => index !== winner)) {
      expect(result.isError).toBe(true);
      // The upstream still lists the question, but this process answered it: the task waits for the job.
      expect(result.structuredContent).toMatchObject({
        taskId,
        key,
        action: "accept",
        sent: false,
        status: "working",
      });
      expect(text(result)).toBe(
        `Question ${key} of scripted_job is not outstanding (already answered); nothing was sent. The job is working.\n` +
          `Next: call task_status {"taskId":"${taskId}"}. ${result.structuredContent["next"].description}`,
      );
    }
    // Later answers too, while the upstream still lists the question.
    expect((await call(service, "task_answer", { taskId, key, action: "decline" })).structuredContent["sent"]).toBe(
      false,
    );
    expect(await service.updateTask(taskId, { [key]: { action: "decline" } }, alice)).toEqual([]);
    expect(scripted.calls.respond).toBe(1);
  });

  it("a refused delivery is not remembered: the question can still be answered", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", { startAs: "input_required" })).structuredContent;
    const key = "job-1-approval-1";
    const respond = scripted.adapter.doRespond!.bind(scripted.adapter);
    let failures = 1;
    scripted.adapter.doRespond = async (ref, responses, context) => {
      if (failures-- > 0)
        throw new UpstreamError("the approval endpoint answered 503", { httpStatus: 503, isRetryable: true });
      await respond(ref, responses, context);
    };
    const failed = await call(service, "task_answer", { taskId, key, action: "accept", content: { approve: true } });
    expect(failed.isError).toBe(true);
    expect(
      (await call(service, "task_answer", { taskId, key, action: "accept", content: { approve: true } }))
        .structuredContent["sent"],
    ).toBe(true);
  });
});

describe("model turns", () => {
  it("a 10-minute job costs at most 16 task_status calls with the defaults (simulated clock)", async () => {
    const clock = { now: Date.UTC(2026, 11, 1, 9, 0) };
    const scripted = createScriptedAdapter({ pollIntervalMs: 2_000 });
    const service = new TaskService({
      adapters: [{ name: "scripted", adapter: scripted.adapter }],
      sealer: new TaskIdSealer({ secret: "handle-tools-test-secret-0123456789abcdef" }),
      logger: createSilentLogger(),
      now: () => clock.now,
      sleep: async (milliseconds) => {
        clock.now += milliseconds;
        const elapsed = clock.now - startedAt;
        // A new progress line every 15 s must not end a wait; the job ends after 10 minutes.
        scripted.update(
          scripted.onlyJob(),
          elapsed >= 600_000 ? completedSnapshot() : workingSnapshot(`minute ${Math.floor(elapsed / 15_000) / 4}`),
        );
      },
    });
    const startedAt = clock.now;
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    let calls = 0;
    let status = "working";
    while (status === "working" && calls < 100) {
      calls += 1;
      status = (await call(service, "task_status", { taskId })).structuredContent["status"];
    }
    expect(status).toBe("completed");
    expect(calls).toBeLessThanOrEqual(16);
    expect(calls).toBeGreaterThanOrEqual(15);
  });
});

describe("task_status with a client that shows forms itself", () => {
  it("raises no form by default: the question goes to the model (a host may decline forms unseen, as codex exec does)", async () => {
    const { service, scripted } = setup();
    const { taskId } = (await call(service, "scripted_job", { startAs: "input_required" })).structuredContent;
    const asked: string[] = [];
    const answered = (await service.callTool(
      "task_status",
      { taskId, waitSeconds: 1 },
      {
        ...alice,
        tasksDeclared: false,
        askUser: async (request) => (asked.push(request.params.message), { action: "decline" as const }),
      },
    )) as CallToolResult;
    expect(asked).toEqual([]);
    expect(scripted.calls.respond).toBe(0);
    expect(answered.structuredContent).toMatchObject({ status: "input_required", next: { tool: "task_answer" } });
  });

  it("with formsFromTaskStatus, delivers the user's answer and keeps waiting; a dismissed or invalid form leaves the question to the model", async () => {
    const { service, scripted } = setup({
      onRespond: (job) => scripted.update(job, completedSnapshot("deployed")),
      service: { formsFromTaskStatus: true },
    });
    const { taskId } = (await call(service, "scripted_job", { startAs: "input_required" })).structuredContent;
    const ask = (response: {
      action: "accept" | "decline" | "cancel";
      content?: Record<string, string | number | boolean | string[]>;
    }) => {
      const asked: string[] = [];
      return {
        asked,
        askUser: async (request: { params: { message: string } }) => (asked.push(request.params.message), response),
      };
    };
    for (const response of [
      { action: "cancel" as const },
      { action: "accept" as const, content: { approve: "yes" } },
    ]) {
      const { asked, askUser } = ask(response);
      const left = (await service.callTool(
        "task_status",
        { taskId, waitSeconds: 1 },
        { ...alice, tasksDeclared: false, askUser },
      )) as CallToolResult;
      expect(asked).toEqual(["Approve the deployment?"]);
      expect(left.structuredContent?.["status"]).toBe("input_required");
    }
    expect(scripted.calls.respond).toBe(0);
    const { askUser } = ask({ action: "accept", content: { approve: true } });
    const done = (await service.callTool(
      "task_status",
      { taskId, waitSeconds: 5 },
      { ...alice, tasksDeclared: false, askUser },
    )) as CallToolResult;
    expect(done.structuredContent?.["status"]).toBe("completed");
    expect(scripted.onlyJob().responses).toEqual([
      { "job-1-approval-1": { action: "accept", content: { approve: true } } },
    ]);
  });
});

describe("an expired task", () => {
  it("answers Task has expired from each handle tool, as tasks/get does, without asking the upstream", async () => {
    let now = Date.UTC(2026, 0, 1);
    const { service, scripted } = setup({ retentionMs: 60_000, service: { now: () => now } });
    const { taskId } = (await call(service, "scripted_job", {})).structuredContent;
    now += 61_000;
    const reads = scripted.calls.getStatus;
    for (const [name, args] of [
      ["task_status", { taskId }],
      ["task_answer", { taskId, key: "k", action: "decline" }],
      ["task_cancel", { taskId }],
    ] as const) {
      const result = await call(service, name, args);
      expect(result.isError, name).toBe(true);
      expect(text(result), name).toMatch(/Task has expired/);
    }
    expect(scripted.calls.getStatus).toBe(reads);
  });
});

/** The demo's and GitHub's approval form: approve starts false in a form's UI. */
function approvalWithDefault(): InputRequest {
  const request = approvalRequest() as InputRequest & {
    params: { requestedSchema: { properties: Record<string, Record<string, unknown>> } };
  };
  request.params.requestedSchema.properties["approve"] = { type: "boolean", title: "Approve", default: false };
  request.params.requestedSchema.properties["comment"] = { type: "string", default: "no comment" };
  return request;
}
