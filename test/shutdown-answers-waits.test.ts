import { afterEach, describe, expect, it } from "vitest";
import { startDemoApiForTests } from "./support/demo-stack.js";
import { Cleanup, randomSecret } from "./support/in-process-server.js";
import { cliEnvironment, startCliHttpServer } from "./support/cli-process.js";
import { connectV1Http } from "./support/v1-client.js";

/**
 * `jobtasks serve` receiving SIGTERM (a deploy, a scaled-down replica) while a client without the extension
 * waits in task_status: the wait is answered with the job's current status, not cut off with a socket error,
 * and the process then exits.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe("jobtasks serve on SIGTERM", () => {
  it("answers an open task_status wait with the current status, then exits", async () => {
    const api = cleanup.add(await startDemoApiForTests());
    const server = cleanup.add(
      await startCliHttpServer({
        env: cliEnvironment({ DEMO_API_URL: api.url, JOBTASKS_SECRET: randomSecret() }),
      }),
    );
    const client = cleanup.add(await connectV1Http(server.url));
    // Ten minutes a step: the job is still running when the server stops.
    const handle = await client.callTool("demo_pipeline", { steps: 2, stepMs: 600_000 });
    const taskId = handle.structuredContent?.["taskId"] as string;
    expect(typeof taskId).toBe("string");

    const open = client.callTool("task_status", { taskId, waitSeconds: 40 });
    const settled = open.then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    const exited = new Promise<number | null>((resolve) => server.child.once("exit", (code) => resolve(code)));
    const stoppedAt = performance.now();
    server.child.kill("SIGTERM");

    const answer = await settled;
    expect(answer).not.toHaveProperty("error");
    const { result } = answer as { result: Awaited<typeof open> };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ taskId, status: "working" });
    expect(performance.now() - stoppedAt).toBeLessThan(5_000);
    expect(await exited).toBe(0);
    // A server start on a loaded machine takes seconds: the bound is the test's, the assertions are above.
  }, 60_000);
});
