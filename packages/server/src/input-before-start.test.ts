import { describe, expect, it } from "vitest";
import {
  InvalidToolInputError,
  type AdapterContext,
  type JobAdapterV1,
  type StartInputRequest,
  type StartInputResponse,
  z,
} from "@jobtasks/core";
import { TaskIdSealer } from "./task-id.js";
import { type CreateTaskResult } from "./task-shape.js";
import { createSilentLogger } from "./logger.js";
import { TaskProtocolError } from "./protocol-error.js";
import { TaskService, type CallerContext } from "./task-service.js";
import { beforeStartStateTtlMs } from "./before-start-state.js";
import type { InputRequiredResult } from "./input-before-start.js";

/**
 * A deploy that asks before it starts: which environment (a form), then, for production only, a second
 * round asking for confirmation. The job records what doStart was given.
 */
const environmentQuestion: StartInputRequest = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: "Deploy where?",
    requestedSchema: { type: "object", properties: { environment: { type: "string" } }, required: ["environment"] },
  },
};
const confirmQuestion: StartInputRequest = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: "Deploy to production?",
    requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
  },
};
const rootsQuestion: StartInputRequest = { method: "roots/list", params: {} };

function setup(now = () => Date.now()) {
  const started: Array<AdapterContext["inputResponses"]> = [];
  const field = (answer: StartInputResponse | undefined, name: string) =>
    answer && "action" in answer && answer.action === "accept" ? answer.content?.[name] : undefined;
  const adapter: JobAdapterV1<string> = {
    specificationVersion: "v1",
    kind: "asking",
    tools: [
      {
        name: "deploy",
        description: "Deploys after asking where (and, for production, whether).",
        inputSchema: z.object({ service: z.string() }),
        synchronousWaitMs: 5_000,
        inputBeforeStart(_input, answers): Record<string, StartInputRequest> | undefined {
          const environment = field(answers["environment"], "environment");
          if (environment === undefined) return { environment: environmentQuestion };
          if (typeof environment !== "string")
            throw new InvalidToolInputError("environment.environment", "must be a string");
          if (environment === "production" && !answers["confirm"]) return { confirm: confirmQuestion };
          return undefined;
        },
        async doStart(_input, context) {
          started.push(context.inputResponses);
          return { ref: `job-${started.length}` };
        },
      },
      {
        name: "where_am_i",
        description: "Asks for the client's roots by listing, or by form when the client cannot list them.",
        inputSchema: z.object({}),
        inputBeforeStart: (_input, answers) =>
          Object.keys(answers).length > 0 ? undefined : { roots: rootsQuestion, by_form: environmentQuestion },
        async doStart(_input, context) {
          started.push(context.inputResponses);
          return { ref: "roots-job" };
        },
      },
    ],
    async doGetStatus() {
      return { status: "working", rawStatus: "running" };
    },
  };
  const service = new TaskService({
    adapters: [{ name: "asking", adapter }],
    sealer: new TaskIdSealer({ secret: "input-before-start-test-secret-0123456789" }),
    logger: createSilentLogger(),
    snapshotCacheMs: 0,
    now,
  });
  return { service, started };
}

type Call = CallerContext & { tasksDeclared: boolean };
const signal = new AbortController().signal;
const withForms = { elicitation: {}, extensions: { "io.modelcontextprotocol/tasks": {} } };
const call = (extra: Partial<Call> = {}): Call => ({
  principal: "alice",
  signal,
  tasksDeclared: true,
  inputResponses: {},
  clientCapabilities: withForms,
  ...extra,
});
const accept = (content: Record<string, string | boolean>) => ({ action: "accept", content });

async function protocolError(promise: Promise<unknown>): Promise<TaskProtocolError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TaskProtocolError);
  return error as TaskProtocolError;
}

describe("questions asked before a job starts", () => {
  it("answers the first call with an input-required result and starts nothing", async () => {
    const { service, started } = setup();
    const first = (await service.callTool("deploy", { service: "web" }, call())) as InputRequiredResult;
    expect(first).toEqual({
      resultType: "input_required",
      inputRequests: { environment: environmentQuestion },
      requestState: expect.any(String),
    });
    expect(first).not.toHaveProperty("taskId");
    expect(started).toEqual([]);
  });

  it("starts the job once the answers are in, giving them to doStart, and answers with a task", async () => {
    const { service, started } = setup();
    const first = (await service.callTool("deploy", { service: "web" }, call())) as InputRequiredResult;
    const created = (await service.callTool(
      "deploy",
      { service: "web" },
      call({ inputResponses: { environment: accept({ environment: "staging" }) }, requestState: first.requestState }),
    )) as CreateTaskResult;
    expect(created).toMatchObject({ resultType: "task", status: "working" });
    expect(created).not.toHaveProperty("requestState");
    expect(started).toEqual([{ environment: accept({ environment: "staging" }) }]);
  });

  it("carries earlier rounds' answers in the requestState, so a follow-up question sees them", async () => {
    const { service, started } = setup();
    const round1 = (await service.callTool("deploy", { service: "web" }, call())) as InputRequiredResult;
    const round2 = (await service.callTool(
      "deploy",
      { service: "web" },
      call({
        inputResponses: { environment: accept({ environment: "production" }) },
        requestState: round1.requestState,
      }),
    )) as InputRequiredResult;
    expect(round2.inputRequests).toEqual({ confirm: confirmQuestion });
    expect(round2.requestState).not.toBe(round1.requestState);
    // Round 3 sends only the new answer, as a multi-round-trip client does.
    await service.callTool(
      "deploy",
      { service: "web" },
      call({ inputResponses: { confirm: accept({ confirm: true }) }, requestState: round2.requestState }),
    );
    expect(started).toEqual([
      { environment: accept({ environment: "production" }), confirm: accept({ confirm: true }) },
    ]);
  });

  it("asks again, rather than failing, when the answers are missing or keyed wrongly; extra keys are ignored", async () => {
    const { service, started } = setup();
    const again = (await service.callTool(
      "deploy",
      { service: "web" },
      call({ inputResponses: { wrong_key: accept({ environment: "x" }) } }),
    )) as InputRequiredResult;
    expect(again.inputRequests).toEqual({ environment: environmentQuestion });
    await service.callTool(
      "deploy",
      { service: "web" },
      call({ inputResponses: { environment: accept({ environment: "staging" }), unrelated: { anything: 1 } } }),
    );
    expect(started).toEqual([{ environment: accept({ environment: "staging" }) }]);
  });

  it("refuses an edited, expired, another caller's or another tool's requestState with -32602", async () => {
    let clock = 1_000_000;
    const { service, started } = setup(() => clock);
    const { requestState } = (await service.callTool("deploy", { service: "web" }, call())) as InputRequiredResult;
    const answer = { environment: accept({ environment: "staging" }) };
    for (const attempt of [
      call({ inputResponses: answer, requestState: `${requestState}-TAMPERED` }),
      call({ inputResponses: answer, requestState, principal: "mallory" }),
    ]) {
      const error = await protocolError(service.callTool("deploy", { service: "web" }, attempt));
      expect(error.code).toBe(-32602);
      expect(error.data).toEqual({ field: "requestState" });
    }
    expect((await protocolError(service.callTool("where_am_i", {}, call({ requestState })))).code).toBe(-32602);
    clock += beforeStartStateTtlMs + 1;
    expect(
      (
        await protocolError(
          service.callTool("deploy", { service: "web" }, call({ inputResponses: answer, requestState })),
        )
      ).message,
    ).toMatch(/expired/);
    expect(started).toEqual([]);
  });

  it("never lets a requestState pass for a task id", async () => {
    const { service } = setup();
    const { requestState } = (await service.callTool("deploy", { service: "web" }, call())) as InputRequiredResult;
    expect((await protocolError(service.getTask(requestState, call()))).code).toBe(-32602);
  });

  it("refuses a malformed answer with -32602 naming its key, and the tool's own refusal likewise", async () => {
    const { service } = setup();
    const malformed = await protocolError(
      service.callTool("deploy", { service: "web" }, call({ inputResponses: { environment: { action: "maybe" } } })),
    );
    expect(malformed).toMatchObject({ code: -32602, data: { field: "inputResponses.environment.action" } });
    const refused = await protocolError(
      service.callTool(
        "deploy",
        { service: "web" },
        call({ inputResponses: { environment: accept({ environment: true }) } }),
      ),
    );
    expect(refused).toMatchObject({ code: -32602, data: { field: "environment.environment" } });
  });

  it("asks only what the client can answer, and refuses with -32021 when it can answer none", async () => {
    const { service } = setup();
    const formsOnly = (await service.callTool("where_am_i", {}, call())) as InputRequiredResult;
    expect(Object.keys(formsOnly.inputRequests)).toEqual(["by_form"]);
    const rootsOnly = (await service.callTool(
      "where_am_i",
      {},
      call({ clientCapabilities: { roots: {} } }),
    )) as InputRequiredResult;
    expect(Object.keys(rootsOnly.inputRequests)).toEqual(["roots"]);
    const none = await protocolError(
      service.callTool("deploy", { service: "web" }, call({ clientCapabilities: { sampling: {} } })),
    );
    expect(none.code).toBe(-32021);
    expect(none.data).toEqual({ requiredCapabilities: { elicitation: {} } });
  });

  it("checks a roots answer's shape before the tool sees it", async () => {
    const { service, started } = setup();
    const roots = { roots: [{ uri: "file:///work", name: "work" }] };
    await service.callTool("where_am_i", {}, call({ clientCapabilities: { roots: {} }, inputResponses: { roots } }));
    expect(started).toEqual([{ roots }]);
    const bad = await protocolError(
      service.callTool(
        "where_am_i",
        {},
        call({ clientCapabilities: { roots: {} }, inputResponses: { roots: { roots: [{ name: "no uri" }] } } }),
      ),
    );
    expect(bad).toMatchObject({ code: -32602, data: { field: "inputResponses.roots.roots" } });
  });

  it("tells a 2025-era client, which cannot answer, with a tool error", async () => {
    const { service, started } = setup();
    const result = await service.callTool(
      "deploy",
      { service: "web" },
      call({ tasksDeclared: false, inputResponses: undefined }),
    );
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: expect.stringMatching(/protocol 2026-07-28/) }],
    });
    expect(started).toEqual([]);
  });
});
