import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { TaskIdSealer } from "./task-id.js";
import { startHttpServer, type RunningHttpServer } from "./http-server.js";
import { TaskService } from "./task-service.js";
import { createScriptedAdapter } from "../../../test/support/scripted-adapter.js";
import { callToolThenLeave } from "../../../test/support/leaving-client.js";
import { capturingLogger } from "./test-support/capturing-logger.js";

/**
 * A client that disconnects while the adapter's doStart is still working: the adapter ends with whatever
 * the cut-short call throws. That is the client's doing, not the server's: no error-level line, no stack.
 */

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** An upstream that never answers: the adapter's call to it ends only when the client's signal fires. */
async function silentUpstream(): Promise<string> {
  const upstream: Server = createServer(() => undefined);
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  closers.push(async () => {
    upstream.closeAllConnections();
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
  });
  return `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/jobs`;
}

describe("a client that leaves while doStart runs", () => {
  it.each([
    ["rethrows the signal's reason", "reason"],
    ["ends with the error of its cut-short fetch", "fetch"],
  ] as const)("is logged at info without a stack when the adapter %s", async (_label, ending) => {
    const upstreamUrl = await silentUpstream();
    const scripted = createScriptedAdapter();
    const tool = scripted.adapter.tools[0]!;
    let settled!: () => void;
    const startSettled = new Promise<void>((resolve) => (settled = resolve));
    let arrived!: () => void;
    const startArrived = new Promise<void>((resolve) => (arrived = resolve));
    tool.doStart = async (_input, context) => {
      arrived();
      try {
        if (ending === "fetch") await fetch(upstreamUrl, { method: "POST", signal: context.signal });
        else
          await new Promise((_resolve, reject) =>
            context.signal.addEventListener("abort", () => reject(context.signal.reason), { once: true }),
          );
        throw new Error("the upstream answered, which this test does not expect");
      } finally {
        settled();
      }
    };
    const { logger, entries } = capturingLogger();
    const service = new TaskService({
      adapters: [{ name: "scripted", adapter: scripted.adapter }],
      sealer: new TaskIdSealer({ secret: "client-left-test-secret-0123456789abcdef" }),
      logger,
    });
    const http: RunningHttpServer = await startHttpServer({
      service,
      logger,
      name: "client-left-test",
      version: "1.0.0",
      port: 0,
    });
    closers.push(async () => {
      await http.close();
      await service.close();
    });

    const client = callToolThenLeave(http.url, "scripted_job");
    await startArrived;
    client.leave();
    expect(await client.answer).toMatchObject({ name: "AbortError" });
    await startSettled;
    await expect
      .poll(() => entries.map((entry) => entry.msg))
      .toContain("the client left while the job was being started");

    expect(entries.filter((entry) => entry.level >= 50)).toEqual([]);
    expect(entries.every((entry) => entry.err?.stack === undefined)).toBe(true);
    expect(entries.find((entry) => entry.msg === "the client left while the job was being started")?.level).toBe(30);
  });
});
