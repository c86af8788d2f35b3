import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunningDemoApi } from "@jobtasks/demo";
import { startDemoApiForTests } from "./support/demo-stack.js";
import { Cleanup, randomSecret } from "./support/in-process-server.js";
import { cliEnvironment, startCliHttpServer } from "./support/cli-process.js";
import { rawResult } from "./support/raw-rpc.js";

/**
 * Clients that do not speak the tasks extension (many agents today) can still run the demo: its config
 * opens demo_pipeline to synchronous calls, answered with the plain tool result within a bound.
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
  it("answers tools/call with the finished pipeline's result, not a task", async () => {
    const server = cleanup.add(await startCliHttpServer({ env: cliEnvironment({ DEMO_API_URL: api.url, JOBTASKS_SECRET: randomSecret() }) }));
    const result = await rawResult(server.url, "tools/call", { name: "demo_pipeline", arguments: { steps: 2, stepMs: 10 } }, { tasks: false });
    expect(result["resultType"]).toBe("complete");
    expect(result).not.toHaveProperty("taskId");
    expect(result["isError"]).not.toBe(true);
    expect(result["structuredContent"]).toMatchObject({ status: "succeeded" });
  });

  it("cancels a pipeline that asks for approval, since only a tasks client can answer, and says so", async () => {
    const server = cleanup.add(await startCliHttpServer({ env: cliEnvironment({ DEMO_API_URL: api.url, JOBTASKS_SECRET: randomSecret() }) }));
    const result = await rawResult(server.url, "tools/call", { name: "demo_pipeline", arguments: { steps: 2, stepMs: 10, approval: true } }, { tasks: false });
    expect(result["isError"]).toBe(true);
    expect(JSON.stringify(result["content"])).toMatch(/needs input.*tasks extension.*cancelled/);
  });
});
