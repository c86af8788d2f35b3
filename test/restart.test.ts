import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunningDemoApi } from "@jobtasks/demo";
import type { SerializedTaskReference } from "@modelcontextprotocol/ext-tasks/client";
import { answerElicitations, connectHttpRequester, type InputHandler } from "./support/requester.js";
import { Cleanup, randomSecret } from "./support/in-process-server.js";
import { startDemoApiForTests } from "./support/demo-stack.js";
import { cliEnvironment, startCliHttpServer } from "./support/cli-process.js";
import { pollUntil, rawError, rawResult } from "./support/raw-rpc.js";

/**
 * A task outlives the server process: the id is the sealed upstream reference, so a server killed mid-task
 * and started again with the same secret (given, or generated once and kept in the config directory)
 * answers the same id and finishes the job.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

let api: RunningDemoApi;
let configHome: string;
beforeAll(async () => {
  api = await startDemoApiForTests();
  // Never the real home: the CLI keeps its generated secret under XDG_CONFIG_HOME.
  configHome = await mkdtemp(join(tmpdir(), "jobtasks-e2e-"));
});
afterAll(async () => {
  await api?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

/** Waits in the input handler until the execution lets go of it; tells the test the task asks for input. */
function holdInput(): { handler: InputHandler; asked: Promise<void> } {
  let signalAsked!: () => void;
  const asked = new Promise<void>((resolve) => (signalAsked = resolve));
  const handler: InputHandler = (_request, context) =>
    new Promise((_resolve, reject) => {
      signalAsked();
      context.signal?.addEventListener("abort", () => reject(context.signal?.reason ?? new Error("released")), {
        once: true,
      });
    });
  return { handler, asked };
}

describe("restart", () => {
  it("SIGKILL mid-task, same secret and port: the official requester resumes the same task and finishes it", async () => {
    const secret = randomSecret();
    const env = cliEnvironment({
      DEMO_API_URL: api.url,
      JOBTASKS_SECRET: secret,
      XDG_CONFIG_HOME: configHome,
      HOME: configHome,
    });
    const first = cleanup.add(await startCliHttpServer({ env }));
    const endpointId = "jobtasks-demo-deployment";

    const held = holdInput();
    const requester = await connectHttpRequester({ url: first.url, endpointId, onInputRequest: held.handler });
    const execution = await requester.session.callTool("demo_pipeline", { steps: 3, stepMs: 20, approval: true });
    if (execution.kind !== "task") throw new Error("expected a task");
    await held.asked;
    let reference: SerializedTaskReference | undefined;
    await execution.handoff((serialized) => {
      reference = serialized;
    });
    await requester.close();
    await first.kill();
    expect(first.child.signalCode).toBe("SIGKILL");

    // The same port, as a restarted deployment would use; the helper retries while it is briefly taken.
    const port = Number(new URL(first.url).port);
    const second = cleanup.add(await startCliHttpServer({ env, port }));
    expect(second.url).toBe(first.url);
    const elicitations = answerElicitations({ action: "accept", content: { approve: true } });
    const resumed = cleanup.add(
      await connectHttpRequester({ url: second.url, endpointId, onInputRequest: elicitations.handler }),
    );
    const continued = await resumed.session.resumeTask(reference!);
    const { outcome } = await continued.settle();
    expect(outcome.status).toBe("completed");
    if (outcome.status !== "completed") return;
    expect((outcome.result as { isError?: boolean }).isError).not.toBe(true);
    expect((outcome.result as { structuredContent?: { status?: string } }).structuredContent?.status).toBe("succeeded");
    expect(elicitations.asked).toHaveLength(1);
    expect(outcome.task?.taskId).toBe(reference!.taskId);
    for (const output of [first.stderr(), second.stderr()]) expect(output).not.toContain(secret);
  });

  it("without JOBTASKS_SECRET the generated secret is kept, so a restarted server (new port) still opens the old id", async () => {
    const home = await mkdtemp(join(configHome, "generated-"));
    const env = cliEnvironment({ DEMO_API_URL: api.url, XDG_CONFIG_HOME: home, HOME: home });
    const first = cleanup.add(await startCliHttpServer({ env }));
    const created = await rawResult(first.url, "tools/call", {
      name: "demo_pipeline",
      arguments: { steps: 2, stepMs: 20, approval: true },
    });
    const taskId = created["taskId"] as string;
    const waiting = await pollUntil(
      () => rawResult(first.url, "tasks/get", { taskId }),
      (task) => task["status"] === "input_required",
    );
    const [inputKey] = Object.keys(waiting["inputRequests"]);
    await first.kill();

    const kept = (await readFile(join(home, "jobtasks", "secret"), "utf8")).trim();
    expect(kept.length).toBeGreaterThanOrEqual(32);

    // A new process (the OS may hand back the port just freed, so the URL proves nothing): only the kept
    // secret can let it open the old id.
    const second = cleanup.add(await startCliHttpServer({ env }));
    expect(first.child.signalCode).toBe("SIGKILL");
    expect(second.child.pid).not.toBe(first.child.pid);
    const reopened = await rawResult(second.url, "tasks/get", { taskId });
    expect(reopened["status"]).toBe("input_required");
    expect(Object.keys(reopened["inputRequests"])).toEqual([inputKey]);
    await rawResult(second.url, "tasks/update", {
      taskId,
      inputResponses: { [inputKey!]: { action: "accept", content: { approve: true } } },
    });
    const finished = await pollUntil(
      () => rawResult(second.url, "tasks/get", { taskId }),
      (task) => task["status"] === "completed",
    );
    expect(finished["result"]["isError"]).not.toBe(true);
    for (const output of [first.stderr(), second.stderr()]) expect(output).not.toContain(kept);

    // A server with another config directory generates another secret and cannot open the id.
    const elsewhere = await mkdtemp(join(configHome, "other-"));
    const stranger = cleanup.add(
      await startCliHttpServer({
        env: cliEnvironment({ DEMO_API_URL: api.url, XDG_CONFIG_HOME: elsewhere, HOME: elsewhere }),
      }),
    );
    expect((await rawError(stranger.url, "tasks/get", { taskId })).code).toBe(-32602);
  });
});
