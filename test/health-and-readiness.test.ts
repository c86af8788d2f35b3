import { afterEach, describe, expect, it } from "vitest";
import { UpstreamError, z, type JobAdapterV1, type JobSnapshot } from "@jobtasks/core";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { rawCall } from "./support/raw-rpc.js";

/**
 * /healthz and /readyz as an orchestrator reads them: unauthenticated, 200 or 503 with a one-line reason
 * that names no adapter, credential or address; an adapter whose credentials the upstream refused makes the
 * process unready until a later call of it is accepted, and checks registered by other parts count too.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

function adapterWithCredentials() {
  let refused = false;
  const adapter: JobAdapterV1<{ jobId: string }> = {
    specificationVersion: "v1",
    kind: "credentialed",
    refSchema: z.object({ jobId: z.string() }),
    tools: [
      {
        name: "credentialed_job",
        description: "a job behind a token",
        inputSchema: z.object({}).strict(),
        doStart: async () => ({ ref: { jobId: "job-1" }, snapshot: { status: "working", rawStatus: "queued" } }),
      },
    ],
    doGetStatus: async (): Promise<JobSnapshot> => {
      if (refused) throw new UpstreamError("the token was refused (HTTP 401)", { httpStatus: 401 });
      return { status: "working", rawStatus: "running" };
    },
  };
  return { adapter, refuse: (value: boolean) => (refused = value) };
}

async function probe(url: string, path: string) {
  const response = await fetch(new URL(path, url));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("health and readiness", () => {
  it("is ready once the adapters are built, unready while an adapter's credentials are refused, and ready again when they are accepted", async () => {
    const upstream = adapterWithCredentials();
    const token = "readiness-token-0123456789abcdef";
    const server = cleanup.add(
      await startInProcessServer({
        adapters: [{ name: "secret-instance-name", adapter: upstream.adapter }],
        tokens: `alice:${token}`,
      }),
    );
    // Neither needs the MCP token.
    expect(await probe(server.url, "/healthz")).toEqual({ status: 200, body: { ok: true } });
    expect(await probe(server.url, "/readyz")).toEqual({ status: 200, body: { ok: true } });

    const call = await rawCall(server.url, "tools/call", { name: "credentialed_job", arguments: {} }, { token });
    const taskId = call.body?.result?.["taskId"] as string;
    upstream.refuse(true);
    await rawCall(server.url, "tasks/get", { taskId }, { token });
    const unready = await probe(server.url, "/readyz");
    expect(unready).toEqual({
      status: 503,
      body: { ok: false, reason: "an adapter's credentials were refused on the last upstream call" },
    });
    expect(JSON.stringify(unready.body)).not.toContain("secret-instance-name");
    // The process still serves.
    expect((await probe(server.url, "/healthz")).status).toBe(200);

    // The token is fixed upstream; the next call of the instance (a task started here) is accepted.
    upstream.refuse(false);
    await rawCall(server.url, "tools/call", { name: "credentialed_job", arguments: {} }, { token });
    expect(await probe(server.url, "/readyz")).toEqual({ status: 200, body: { ok: true } });
  });

  it("answers 503 with the reason of a registered check that fails, and of one that throws without its message", async () => {
    const server = cleanup.add(
      await startInProcessServer({ adapters: [{ name: "a", adapter: adapterWithCredentials().adapter }] }),
    );
    let reachable = false;
    server.service.readiness.addCheck("redis", () => (reachable ? undefined : "shared state is unreachable"));
    expect(await probe(server.url, "/readyz")).toEqual({
      status: 503,
      body: { ok: false, reason: "shared state is unreachable" },
    });
    reachable = true;
    expect((await probe(server.url, "/readyz")).status).toBe(200);
    server.service.readiness.addCheck("broken", async () => {
      throw new Error("connect ECONNREFUSED 10.0.0.7:6379");
    });
    expect(await probe(server.url, "/readyz")).toEqual({
      status: 503,
      body: { ok: false, reason: "a readiness check failed" },
    });
  });
});
