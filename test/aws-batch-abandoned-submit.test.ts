import { afterEach, describe, expect, it } from "vitest";
import { awsBatch } from "@jobtasks/aws-batch";
import { startFakeAwsBatch } from "./support/fake-aws-batch-api.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { envelope, protocolVersion } from "./support/raw-rpc.js";

/**
 * A client that disconnects while SubmitJob is in flight, through a real server and the adapter's real SDK
 * client against the loopback Batch fake: AWS has created the job, nobody will hold its task id, so the job
 * must not be left running.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe("AWS Batch: a client that leaves during SubmitJob", () => {
  it("does not leave the job behind: the submit finishes and the job is terminated", async () => {
    const batch = cleanup.add(await startFakeAwsBatch());
    const adapter = awsBatch(
      {
        region: "us-east-1",
        endpoint: batch.url,
        credentials: { accessKeyId: "AKIAE2ETESTKEY000001", secretAccessKey: "e2e/Secret+Access/Key/Never/Leaks/0123456789" },
        templates: [{ tool: "render_frames", description: "Render a scene", jobQueue: "render-queue", jobDefinition: "blender-render:3" }],
        retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
        duplicateCheckDelayMs: 10,
      },
      {},
    );
    // Watch the start from the server's side: when it sees the client leave, and when doStart settles.
    const tool = adapter.tools.find((candidate) => candidate.name === "render_frames")!;
    const start = tool.doStart.bind(tool);
    let clientLeft!: () => void;
    const serverSawClientLeave = new Promise<void>((resolve) => (clientLeft = resolve));
    let startSettled!: Promise<unknown>;
    tool.doStart = (input, context) => {
      context.signal.addEventListener("abort", () => clientLeft(), { once: true });
      const starting = start(input, context);
      startSettled = starting.then(
        () => "returned",
        () => "threw",
      );
      return starting;
    };
    const server = cleanup.add(await startInProcessServer({ adapters: [{ name: "batch", adapter }] }));

    let releaseSubmit!: () => void;
    const submitReleased = new Promise<void>((resolve) => (releaseSubmit = resolve));
    let submitArrived!: () => void;
    const submitInFlight = new Promise<void>((resolve) => (submitArrived = resolve));
    batch.holdSubmitAnswer = () => {
      submitArrived();
      return submitReleased;
    };

    const client = new AbortController();
    const call = fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": protocolVersion,
        "mcp-method": "tools/call",
        "mcp-name": "render_frames",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "render_frames", arguments: {}, _meta: envelope(true) } }),
      signal: client.signal,
    }).catch((error: unknown) => error);

    await submitInFlight;
    client.abort();
    expect(await call).toMatchObject({ name: "AbortError" });
    await serverSawClientLeave;
    releaseSubmit();
    expect(await startSettled).toBe("threw");

    const [job] = [...batch.jobs.values()];
    expect(batch.callsTo("submitjob")).toHaveLength(1);
    expect(batch.callsTo("terminatejob").map((terminate) => terminate.body)).toEqual([
      { jobId: job!.jobId, reason: "jobtasks: cancelled, the client left before the task was handed out" },
    ]);
  });
});
