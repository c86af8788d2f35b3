import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { UpstreamError, type JobAdapterV1, type JobSnapshot, z } from "@jobtasks/core";
import { TaskIdSealer } from "./task-id.js";
import type { CreateTaskResult } from "./task-shape.js";
import { TaskService, type CallerContext } from "./task-service.js";

const secret = "leaky-token-0123456789abcdef";
const alice: CallerContext & { tasksDeclared: boolean } = {
  principal: "alice",
  signal: new AbortController().signal,
  tasksDeclared: true,
};

function capturingLogger() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(
        ...chunk
          .toString("utf8")
          .split("\n")
          .filter((line) => line.trim() !== ""),
      );
      done();
    },
  });
  return { logger: pino({ level: "debug" }, sink), lines };
}

/**
 * An adapter that declares its token and then puts it everywhere an adapter can: in status messages,
 * results, input requests, thrown errors (message and cause) and log entries (message and fields).
 */
const silentAdapterLogger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

function leakyAdapter(secrets: JobAdapterV1["secrets"], token: () => string = () => secret) {
  let snapshot: JobSnapshot = { status: "working", rawStatus: "running", message: "" };
  const adapter: JobAdapterV1<{ jobId: string }> = {
    specificationVersion: "v1",
    kind: "leaky",
    ...(secrets !== undefined ? { secrets } : {}),
    tools: [
      {
        name: "leaky_job",
        description: "A job that leaks its token.",
        inputSchema: z.object({ fail: z.boolean().default(false) }),
        async doStart(input, context) {
          context.logger.info(
            { url: `https://jobs.test/start?token=${encodeURIComponent(token())}` },
            `starting with ${token()}`,
          );
          if (input.fail) throw new Error(`start refused for token ${token()}`);
          snapshot = { status: "working", rawStatus: `running as ${token()}`, message: `step 1 with ${token()}` };
          return { ref: { jobId: "j-1" }, snapshot };
        },
      },
    ],
    async doGetStatus(_ref, context) {
      context.logger.warn({ header: `Bearer ${token()}`, nested: [{ again: token() }] }, `read with ${token()}`);
      return snapshot;
    },
    async doCancel() {
      throw new UpstreamError(`cancel failed: ${token()} is not allowed`, {
        httpStatus: 403,
        cause: new Error(`inner ${token()}`),
      });
    },
  };
  const finish = () => {
    snapshot = {
      status: "completed",
      rawStatus: "done",
      message: `finished by ${token()}`,
      result: {
        content: [{ type: "text", text: `log: token=${token()}` }],
        structuredContent: { token: token(), list: [token()] },
      },
    };
  };
  return { adapter, finish };
}

function serve(adapter: JobAdapterV1<{ jobId: string }>) {
  const { logger, lines } = capturingLogger();
  const service = new TaskService({
    adapters: [{ name: "leaky", adapter }],
    sealer: new TaskIdSealer({ secret: "redaction-test-sealing-secret-0123456789" }),
    logger,
    snapshotCacheMs: 0,
  });
  return { service, lines };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail("expected a rejection"),
    (error: unknown) => error,
  );
}

function seenByClientOrLog(answers: unknown[], lines: string[]): string {
  return (
    JSON.stringify(
      answers.map((answer) =>
        answer instanceof Error ? { message: answer.message, data: (answer as { data?: unknown }).data } : answer,
      ),
    ) + lines.join("\n")
  );
}

describe("the redaction every adapter is called through", () => {
  it("keeps a declared secret out of results, status messages, errors and log entries", async () => {
    const { adapter, finish } = leakyAdapter([secret]);
    const { service, lines } = serve(adapter);
    const created = (await service.callTool("leaky_job", {}, alice)) as CreateTaskResult;
    const working = await service.getTask(created.taskId, alice);
    const cancelError = await rejection(service.cancelTask(created.taskId, alice));
    const failedStart = await service.callTool("leaky_job", { fail: true }, alice);
    finish();
    const completed = await service.getTask(created.taskId, alice);

    const everything = seenByClientOrLog([created, working, cancelError, failedStart, completed], lines);
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain(encodeURIComponent(secret));
    // What was around the secret still arrives: only the secret is gone.
    expect(created.statusMessage).toBe("step 1 with [redacted]");
    expect(completed).toMatchObject({
      status: "completed",
      result: {
        content: [{ text: "log: token=[redacted]" }],
        structuredContent: { token: "[redacted]", list: ["[redacted]"] },
      },
    });
    expect((cancelError as Error).message).toBe(
      "Could not request cancellation: cancel failed: [redacted] is not allowed",
    );
    expect(lines.some((line) => line.includes("read with [redacted]") && line.includes("Bearer [redacted]"))).toBe(
      true,
    );
    expect(lines.some((line) => line.includes("start refused for token [redacted]"))).toBe(true);
  });

  it("keeps an error's class and fields, so the server still answers by them", async () => {
    const { adapter } = leakyAdapter([secret]);
    const { service } = serve(adapter);
    const created = (await service.callTool("leaky_job", {}, alice)) as CreateTaskResult;
    const upstream = await rejection(
      adapter.doCancel!(
        { jobId: "j-1" },
        { signal: alice.signal, principal: "alice", logger: pino({ level: "silent" }) },
      ),
    );
    const wrapped = service.registry.adapter("leaky")!;
    const redacted = await rejection(
      wrapped.doCancel!(
        { jobId: "j-1" },
        { signal: alice.signal, principal: "alice", logger: pino({ level: "silent" }) },
      ),
    );
    expect(upstream).toBeInstanceOf(UpstreamError);
    expect(redacted).toBeInstanceOf(UpstreamError);
    expect(redacted).toMatchObject({
      httpStatus: 403,
      isRetryable: false,
      message: "cancel failed: [redacted] is not allowed",
    });
    expect(String((redacted as Error).stack)).not.toContain(secret);
    expect(((redacted as Error).cause as Error).message).toBe("inner [redacted]");
    expect(created.taskId).toMatch(/^jt1\./);
  });

  it("asks a secrets getter on every call, so a renewed credential is redacted too", async () => {
    let current = "first-credential-0123456789";
    const { adapter } = leakyAdapter(
      () => [current],
      () => current,
    );
    const { service } = serve(adapter);
    const created = (await service.callTool("leaky_job", {}, alice)) as CreateTaskResult;
    expect(created.statusMessage).toBe("step 1 with [redacted]");
    current = "renewed-credential-9876543210";
    const second = (await service.callTool("leaky_job", {}, alice)) as CreateTaskResult;
    expect(second.statusMessage).toBe("step 1 with [redacted]");
  });

  it("leaves an adapter without declared secrets unredacted: what it says reaches the server as it said it", async () => {
    const { adapter } = leakyAdapter(undefined);
    const { service } = serve(adapter);
    const served = service.registry.adapter("leaky")!;
    const context = { signal: new AbortController().signal, principal: "local", logger: silentAdapterLogger };
    const started = await served.tools[0]!.doStart({ fail: false }, context);
    expect(started.snapshot?.message).toBe(`step 1 with ${secret}`);
    expect(served.kind).toBe("leaky");
  });
});
