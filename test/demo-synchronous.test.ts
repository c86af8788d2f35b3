import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunningDemoApi } from "@jobtasks/demo";
import { startDemoApiForTests } from "./support/demo-stack.js";
import { Cleanup, randomSecret } from "./support/in-process-server.js";
import { cliEnvironment, startCliHttpServer } from "./support/cli-process.js";
import { rawResult } from "./support/raw-rpc.js";

/**
 * The demo config for a client that does not speak the tasks extension (many agents today): a quick
 * pipeline is answered with its plain result, a longer one with a handle to follow, never cancelled.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

let api: RunningDemoApi;
beforeAll(async () => {
  api = await startDemoApiForTests();
});
afterAll(async () => {
  await api?.close();
});

describe("the demo for a client without the tasks extension", () => {
  it("answers tools/call with a quick pipeline's result, not a task", async () => {
    const server = cleanup.add(
      await startCliHttpServer({ env: cliEnvironment({ DEMO_API_URL: api.url, JOBTASKS_SECRET: randomSecret() }) }),
    );
    const result = await rawResult(
      server.url,
      "tools/call",
      { name: "demo_pipeline", arguments: { steps: 2, stepMs: 10 } },
      { tasks: false },
    );
    expect(result["resultType"]).toBe("complete");
    expect(result["isError"]).not.toBe(true);
    expect(result["structuredContent"]).toMatchObject({ status: "succeeded" });
  });

  it("answers a pipeline that asks for approval with a handle and leaves it waiting, not cancelled", async () => {
    const server = cleanup.add(
      await startCliHttpServer({ env: cliEnvironment({ DEMO_API_URL: api.url, JOBTASKS_SECRET: randomSecret() }) }),
    );
    const result = await rawResult(
      server.url,
      "tools/call",
      { name: "demo_pipeline", arguments: { steps: 2, stepMs: 10, approval: true } },
      { tasks: false },
    );
    expect(result["resultType"]).not.toBe("task");
    expect(result["isError"]).not.toBe(true);
    expect(result["structuredContent"]).toMatchObject({
      status: "input_required",
      taskId: expect.stringMatching(/^jt1\./),
    });
    expect(JSON.stringify(result["content"])).toContain("task_answer");
    const status = await rawResult(
      server.url,
      "tools/call",
      { name: "task_status", arguments: { taskId: result["structuredContent"]["taskId"], waitSeconds: 0 } },
      { tasks: false },
    );
    expect(status["structuredContent"]["status"]).toBe("input_required");
  });
});
