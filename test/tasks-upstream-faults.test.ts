import { afterEach, describe, expect, it } from "vitest";
import { JobNotFoundError, UpstreamError } from "@jobtasks/core";
import { rawError, rawResult } from "./support/raw-rpc.js";
import { Cleanup, randomSecret, startInProcessServer } from "./support/in-process-server.js";
import {
  approvalRequest,
  completedSnapshot,
  createScriptedAdapter,
  inputRequiredSnapshot,
  workingSnapshot,
} from "./support/scripted-adapter.js";

/**
 * When the upstream misbehaves: an outage keeps the task working with a message saying so, until the retry
 * budget runs out and the task fails; a job the upstream refuses to show fails at once; a job it no longer
 * knows answers "Task has expired".
 * `failed` carries a JSON-RPC error object: these are protocol-level faults, not a job that ran and failed.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const retryBudgetMs = 60_000;

async function serve() {
  let now = Date.parse("2026-11-02T08:00:00Z");
  const scripted = createScriptedAdapter();
  const server = cleanup.add(
    await startInProcessServer({
      adapters: [{ name: "scripted", adapter: scripted.adapter }],
      service: { upstreamRetryBudgetMs: retryBudgetMs, now: () => now },
    }),
  );
  const taskId = (await rawResult(server.url, "tools/call", { name: "scripted_job", arguments: {} }))[
    "taskId"
  ] as string;
  return {
    scripted,
    job: scripted.onlyJob(),
    url: server.url,
    taskId,
    get: () => rawResult(server.url, "tasks/get", { taskId }),
    advance: (milliseconds: number) => {
      now += milliseconds;
    },
  };
}

describe("upstream faults", () => {
  it("an outage keeps the task working with a message saying so, then fails it after the retry budget", async () => {
    const { scripted, job, get, advance } = await serve();
    scripted.failReads(job, new UpstreamError("upstream answered 503", { httpStatus: 503 }));
    const during = await get();
    expect(during["status"]).toBe("working");
    expect(during["statusMessage"]).toMatch(/unavailable/i);
    advance(retryBudgetMs / 2);
    expect((await get())["status"]).toBe("working");
    advance(retryBudgetMs / 2 + 1);
    const after = await get();
    expect(after["status"]).toBe("failed");
    expect(after["error"]).toMatchObject({ code: expect.any(Number), message: expect.stringMatching(/unavailable/i) });
    expect(after["statusMessage"]).toMatch(/unavailable/i);
    // The upstream comes back, too late: failed is terminal.
    scripted.failReads(job, undefined);
    expect((await get())["status"]).toBe("failed");
  });

  it("an outage that ends within the budget leaves no trace", async () => {
    const { scripted, job, get, advance } = await serve();
    scripted.failReads(job, new UpstreamError("upstream answered 502", { httpStatus: 502 }));
    expect((await get())["statusMessage"]).toMatch(/unavailable/i);
    advance(retryBudgetMs - 1_000);
    scripted.failReads(job, undefined);
    scripted.update(job, workingSnapshot("step 2/3: test"));
    const recovered = await get();
    expect(recovered["status"]).toBe("working");
    expect(recovered["statusMessage"]).toBe("step 2/3: test");
    // A new outage starts a new budget rather than continuing the old one.
    scripted.failReads(job, new UpstreamError("upstream answered 503", { httpStatus: 503 }));
    advance(retryBudgetMs / 2);
    expect((await get())["status"]).toBe("working");
  });

  // The server stores nothing, so it cannot know whether a job the upstream forgot had finished (its
  // answer may have been "completed" a minute ago, on another replica): "failed" could contradict that.
  // "Task has expired" contradicts no earlier answer, and every replica gives it.
  it("a job the upstream no longer knows answers -32602 Task has expired, every time", async () => {
    const { scripted, job, url, taskId } = await serve();
    scripted.failReads(job, new JobNotFoundError("run 42 was deleted"));
    for (let attempt = 0; attempt < 2; attempt += 1) {
      expect(await rawError(url, "tasks/get", { taskId })).toEqual({
        code: -32602,
        message: "Failed to retrieve task: Task has expired",
      });
    }
    scripted.update(job, inputRequiredSnapshot({ "gate-1": approvalRequest() }));
    expect(
      await rawError(url, "tasks/update", { taskId, inputResponses: { "gate-1": { action: "decline" } } }),
    ).toMatchObject({ code: -32602, message: "Failed to retrieve task: Task has expired" });
    expect(scripted.calls.respond).toBe(0);
  });

  it("a task that completed reads expired, never failed, once the upstream forgets its job", async () => {
    const scripted = createScriptedAdapter();
    const secret = randomSecret();
    const first = cleanup.add(
      await startInProcessServer({ adapters: [{ name: "scripted", adapter: scripted.adapter }], secret }),
    );
    const taskId = (await rawResult(first.url, "tools/call", { name: "scripted_job", arguments: {} }))[
      "taskId"
    ] as string;
    scripted.update(scripted.onlyJob(), completedSnapshot("all green"));
    expect((await rawResult(first.url, "tasks/get", { taskId }))["status"]).toBe("completed");
    scripted.failReads(scripted.onlyJob(), new JobNotFoundError("run 42 was deleted"));
    // Another replica (or this one after a restart) never saw the job finish.
    const second = cleanup.add(
      await startInProcessServer({ adapters: [{ name: "scripted", adapter: scripted.adapter }], secret }),
    );
    expect(await rawError(second.url, "tasks/get", { taskId })).toMatchObject({
      code: -32602,
      message: "Failed to retrieve task: Task has expired",
    });
    expect(await rawError(second.url, "tasks/cancel", { taskId })).toMatchObject({
      code: -32602,
      message: "Failed to retrieve task: Task has expired",
    });
    // The replica that saw it finish keeps its finished answer: terminal statuses never change.
    expect((await rawResult(first.url, "tasks/get", { taskId }))["status"]).toBe("completed");
  });

  it("an upstream that refuses to show the job (403, not retryable) ends the task failed", async () => {
    const { scripted, job, get } = await serve();
    scripted.failReads(job, new UpstreamError("upstream answered 403", { httpStatus: 403 }));
    const task = await get();
    expect(task["status"]).toBe("failed");
    expect(task["error"]["code"]).toEqual(expect.any(Number));
  });

  it("a start the upstream refuses answers a tool error the agent can read, and no task", async () => {
    const scripted = createScriptedAdapter();
    const server = cleanup.add(
      await startInProcessServer({ adapters: [{ name: "scripted", adapter: scripted.adapter }] }),
    );
    scripted.failStarts(
      new UpstreamError("upstream answered 422: workflow has no dispatch trigger", { httpStatus: 422 }),
    );
    const result = await rawResult(server.url, "tools/call", { name: "scripted_job", arguments: {} });
    expect(result["taskId"]).toBeUndefined();
    expect(result["resultType"]).not.toBe("task");
    expect(result["isError"]).toBe(true);
    expect(result["content"][0]["text"]).toContain("422");
  });
});
