import { afterEach, describe, expect, it } from "vitest";
import { z, type JobAdapterV1, type JobTool } from "@jobtasks/core";
import { upstreamRequestStarted } from "@jobtasks/core/adapter-utils";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { rawCall } from "./support/raw-rpc.js";
import { startTestTelemetry } from "./support/test-telemetry.js";

/**
 * The metrics' cardinality is bounded by the config, not by the traffic: 10,000 tasks over 100 tools add
 * at most 500 series to a scrape (counted as Prometheus counts them: one per sample line, a histogram's
 * buckets included), and no sample names a task id, a job id or a principal.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const toolCount = 100;
const taskCount = 10_000;

/** 100 tools whose jobs are numbered; each start and each read reports one upstream request. */
function manyToolsAdapter(): JobAdapterV1<{ jobId: string }> {
  let next = 0;
  const report = (method: string, urlTemplate: string) =>
    upstreamRequestStarted({ operation: `${method} ${urlTemplate}`, method, urlTemplate }).end({ status: 200 });
  const tools: JobTool<{ jobId: string }>[] = Array.from({ length: toolCount }, (_, index) => ({
    name: `tool_${index}`,
    description: `tool number ${index}`,
    inputSchema: z.object({}).strict(),
    doStart: async () => {
      report("POST", "/jobs");
      const jobId = `job-${(next += 1)}-${index}`;
      return { ref: { jobId }, snapshot: { status: "working", rawStatus: "queued" } };
    },
  }));
  return {
    specificationVersion: "v1",
    kind: "many-tools",
    refSchema: z.object({ jobId: z.string() }),
    tools,
    doGetStatus: async (ref) => {
      report("GET", "/jobs/{job_id}");
      const number = Number(ref.jobId.split("-")[1]);
      return number % 2 === 0
        ? { status: "completed", rawStatus: "done", result: { content: [{ type: "text", text: "done" }] } }
        : { status: "working", rawStatus: "running" };
    },
  };
}

const seriesOf = (text: string) => text.split("\n").filter((line) => line !== "" && !line.startsWith("#"));

describe("metrics cardinality", () => {
  it(
    "10,000 tasks over 100 tools add at most 500 series, none naming a task, a job or a principal",
    { timeout: 120_000 },
    async () => {
      const observed = startTestTelemetry();
      cleanup.defer(() => observed.close());
      const server = cleanup.add(
        await startInProcessServer({
          adapters: [{ name: "many", adapter: manyToolsAdapter() }],
          service: { telemetry: observed.telemetry, snapshotCacheMs: 1000 },
          tokens: "alice:cardinality-token-0123456789,bob:cardinality-token-9876543210",
        }),
      );
      // Every request type once over HTTP, so the baseline has the series that do not grow with tasks.
      const token = "cardinality-token-0123456789";
      const first = await rawCall(server.url, "tools/call", { name: "tool_0", arguments: {} }, { token });
      await rawCall(server.url, "tasks/get", { taskId: first.body?.result?.["taskId"] }, { token });
      const before = seriesOf(await observed.prometheusText()).length;

      // Each tool once through the MCP endpoint, where the request metrics are recorded (first, while the
      // connection is fresh: the loop below leaves it idle past the server's keep-alive).
      for (let index = 0; index < toolCount; index++)
        await rawCall(server.url, "tools/call", { name: `tool_${index}`, arguments: {} }, { token });
      const taskIds: string[] = [];
      for (let index = 0; index < taskCount; index++) {
        const principal = index % 2 === 0 ? "alice" : "bob";
        const caller = { principal, signal: new AbortController().signal };
        const created = (await server.service.callTool(
          `tool_${index % toolCount}`,
          {},
          { ...caller, tasksDeclared: true },
        )) as {
          taskId: string;
        };
        taskIds.push(created.taskId);
        await server.service.getTask(created.taskId, caller);
      }

      const text = await observed.prometheusText();
      const added = seriesOf(text).length - before;
      expect(added).toBeLessThanOrEqual(500);
      expect(added).toBeGreaterThanOrEqual(toolCount - 1);
      for (const taskId of taskIds.slice(0, 50)) expect(text).not.toContain(taskId);
      expect(text).not.toMatch(/job-\d+-\d+/);
      expect(text).not.toMatch(/"(alice|bob)"/);
    },
  );
});
