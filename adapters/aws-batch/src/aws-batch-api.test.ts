import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { UpstreamError } from "@jobtasks/core";
import { afterEach, describe, expect, it } from "vitest";
import { awsBatch } from "./aws-batch-adapter.js";
import { readFixture } from "./test-support/fixtures.js";
import { createTestContext } from "@jobtasks/testkit";

/**
 * The clients the adapter builds itself, against a loopback server: they must use the configured endpoint,
 * Region and credentials (never the machine's AWS config), send each call once, and time out.
 */
const credentials = {
  accessKeyId: "AKIALOOPBACKTEST0001",
  secretAccessKey: "loopback/secret/key/for/tests/only/00000",
};
let server: Server | undefined;

async function startServer(
  handle: (request: IncomingMessage, respond: (status: number, body: unknown) => void) => void,
) {
  server = createServer((request, response) => {
    request.resume();
    request.on("end", () =>
      handle(request, (status, body) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(body));
      }),
    );
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  // Only a started server is closed: close(resolve) on no server would never call back and hang the hook.
  const started = server;
  server = undefined;
  if (!started) return;
  started.closeAllConnections();
  await new Promise((resolve) => started.close(resolve));
});

describe("clients built from options", () => {
  it("sign with the configured credentials and Region and call the configured endpoint", async () => {
    const authorizations: string[] = [];
    const endpoint = await startServer((request, respond) => {
      authorizations.push(String(request.headers.authorization));
      respond(200, readFixture("describe-jobs-running.json"));
    });
    const adapter = awsBatch({ region: "eu-central-1", credentials, endpoint });
    const snapshot = await adapter.doGetStatus({ jobId: "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f" }, createTestContext());
    await adapter.close?.();
    expect(snapshot.rawStatus).toBe("RUNNING");
    expect(authorizations).toHaveLength(1);
    expect(authorizations[0]).toMatch(/Credential=AKIALOOPBACKTEST0001\/\d{8}\/eu-central-1\/batch\/aws4_request/);
  });

  it("send a configured session token as X-Amz-Security-Token, and none when it is unset or undefined", async () => {
    const tokens: Array<string | undefined> = [];
    const endpoint = await startServer((request, respond) => {
      tokens.push(request.headers["x-amz-security-token"] as string | undefined);
      respond(200, readFixture("describe-jobs-running.json"));
    });
    const ref = { jobId: "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f" };
    for (const sessionCredentials of [
      { ...credentials, sessionToken: "loopback-session-token-0001" },
      credentials,
      { ...credentials, sessionToken: undefined },
    ]) {
      const adapter = awsBatch({ region: "eu-central-1", credentials: sessionCredentials, endpoint });
      await adapter.doGetStatus(ref, createTestContext());
      await adapter.close?.();
    }
    expect(tokens).toEqual(["loopback-session-token-0001", undefined, undefined]);
  });

  it("time out a call that never answers and report it as retryable, without the SDK retrying underneath", async () => {
    let requests = 0;
    const endpoint = await startServer(() => {
      requests += 1; // never answers
    });
    const adapter = awsBatch({
      region: "eu-central-1",
      credentials,
      endpoint,
      requestTimeoutMs: 200,
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 },
    });
    // watch_job's start, which backs off on its own (a status read is sent once): two adapter attempts,
    // and nothing more from the SDK underneath.
    const watch = adapter.tools.find((tool) => tool.name === "watch_job")!;
    const error = await watch
      .doStart(watch.inputSchema.parse({ jobId: "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f" }), createTestContext())
      .catch((caught: unknown) => caught);
    await adapter.close?.();
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).isRetryable).toBe(true);
    expect((error as Error).message).not.toContain(credentials.secretAccessKey);
    expect(requests).toBe(2);
  });
});
