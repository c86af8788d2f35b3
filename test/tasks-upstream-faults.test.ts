import { afterEach, describe, expect, it } from "vitest";
import { JobNotFoundError, UpstreamError } from "@jobtasks/core";
import { rawResult } from "./support/raw-rpc.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { createScriptedAdapter, workingSnapshot } from "./support/scripted-adapter.js";

/**
 * When the upstream misbehaves: an outage keeps the task working with a message saying so, until the retry
 * budget runs out and the task fails; a job the upstream no longer knows, or refuses to show, fails at once.
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
  const taskId = (await rawResult(server.url, "tools/call", { name: "scripted_job", arguments: {} }))["taskId"] as string;
  return {
    scripted,
    job: scripted.onlyJob(),
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

  it("a job the upstream no longer knows ends failed with an error object", async () => {
    const { scripted, job, get } = await serve();
    scripted.failReads(job, new JobNotFoundError("run 42 was deleted"));
    const task = await get();
    expect(task["status"]).toBe("failed");
    expect(task["error"]).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
    expect(task["statusMessage"]).toBeTruthy();
    expect(task).not.toHaveProperty("result");
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
    const server = cleanup.add(await startInProcessServer({ adapters: [{ name: "scripted", adapter: scripted.adapter }] }));
    scripted.failStarts(new UpstreamError("upstream answered 422: workflow has no dispatch trigger", { httpStatus: 422 }));
    const result = await rawResult(server.url, "tools/call", { name: "scripted_job", arguments: {} });
    expect(result["taskId"]).toBeUndefined();
    expect(result["resultType"]).not.toBe("task");
    expect(result["isError"]).toBe(true);
    expect(result["content"][0]["text"]).toContain("422");
  });
});
