import { afterEach, describe, expect, it } from "vitest";
import { DiagLogLevel, ROOT_CONTEXT, diag } from "@opentelemetry/api";
import { TaskIdSealer } from "../packages/server/src/task-id.js";
import { TaskService, type CallerContext } from "../packages/server/src/task-service.js";
import type { CreateTaskResult } from "../packages/server/src/task-shape.js";
import { noSharedState, type SharedReadAnswer, type SharedState } from "../packages/server/src/shared-state.js";
import type { Telemetry } from "../packages/server/src/telemetry.js";
import { createSilentLogger } from "../packages/server/src/logger.js";
import { completedSnapshot, createScriptedAdapter, workingSnapshot } from "./support/scripted-adapter.js";
import { samplesOf, startTestTelemetry, type TestTelemetry } from "./support/test-telemetry.js";

/**
 * How `jobtasks.snapshot.reads` names a read that went through a shared cache: only one that asked the
 * upstream is a miss. The shared cache here is scripted (the real one, on Redis, is in
 * replicas-share-state.test.ts): each test says what its readThrough does.
 */

const alice: CallerContext & { tasksDeclared: boolean } = {
  principal: "alice",
  signal: new AbortController().signal,
  tasksDeclared: true,
};
let observed: TestTelemetry | undefined;
afterEach(async () => {
  await observed?.close();
  observed = undefined;
});

async function readOnceThrough(
  readThrough: SharedState["snapshots"]["readThrough"],
  options: { slowUpstreamAnswerMs?: number } = {},
) {
  observed = startTestTelemetry();
  const scripted = createScriptedAdapter();
  let throughs = 0;
  const service = new TaskService({
    adapters: [{ name: "scripted", adapter: scripted.adapter }],
    sealer: new TaskIdSealer({ secret: "telemetry-shared-reads-secret-0123456789abcdef" }),
    logger: createSilentLogger(),
    snapshotCacheMs: 0,
    immediateRetries: 0,
    ...options,
    sharedState: {
      ...noSharedState,
      snapshots: {
        ...noSharedState.snapshots,
        active: true,
        // The read before tools/call answers goes to the upstream; the poll after it is the one under test.
        readThrough: (read) => (++throughs === 1 ? noSharedState.snapshots.readThrough(read) : readThrough(read)),
      },
    },
    // The test SDK's Telemetry is the built package's class, the same code this file's service runs from src.
    telemetry: observed.telemetry as unknown as Telemetry,
  });
  const { taskId } = (await service.callTool("scripted_job", {}, alice)) as CreateTaskResult;
  const reads = () => scripted.calls.getStatus;
  const before = reads();
  const spansBefore = observed.spans().length;
  // As the HTTP server polls: with the request's span handed over, deferred until the read needs it.
  const requestSpan = observed.telemetry.requestSpan(
    "tasks/get",
    "tasks/get",
    { "mcp.method.name": "tasks/get" },
    ROOT_CONTEXT,
    performance.now(),
  );
  // The built package's RequestSpan, as the test SDK's Telemetry above.
  await service.getTask(taskId, { ...alice, requestSpan: requestSpan as never });
  requestSpan?.end();
  const pollSpans = observed
    .spans()
    .slice(spansBefore)
    .map((span) => `${span.name} (${String(span.attributes["jobtasks.snapshot.source"])})`);
  const sources = samplesOf(await observed.prometheusText(), "jobtasks_snapshot_reads_total").map((sample) => [
    sample.labels["jobtasks_snapshot_source"],
    sample.value,
  ]);
  // tools/call's own read is a miss; the rest is the poll's.
  return { sources: sortedSources(sources), upstreamReads: reads() - before, pollSpans };
}

const sortedSources = (sources: unknown[][]) => [...sources].sort((a, b) => String(a[0]).localeCompare(String(b[0])));

describe("snapshot reads through a shared cache", () => {
  it("one whose caller stopped waiting on the shared cache before the upstream was asked still counts, as a miss", async () => {
    let answer: ((value: SharedReadAnswer) => void) | undefined;
    const { sources, upstreamReads, pollSpans } = await readOnceThrough(
      () => new Promise<SharedReadAnswer>((resolve) => (answer = resolve)),
      { slowUpstreamAnswerMs: 20 },
    );
    expect({ sources, upstreamReads, pollSpans }).toEqual({ sources: [["miss", 2]], upstreamReads: 0, pollSpans: [] });
    answer?.({ kind: "shared", snapshot: workingSnapshot("deploying"), readAt: Date.now(), terminal: false });
  });

  it("a read that asked the upstream is a miss, even when another replica's finished snapshot answers it", async () => {
    const { sources, upstreamReads, pollSpans } = await readOnceThrough(async (read) => {
      await read.readUpstream();
      return { kind: "shared", snapshot: completedSnapshot(), readAt: Date.now(), terminal: true };
    });
    expect(upstreamReads).toBe(1);
    expect(sources).toEqual([["miss", 2]]);
    // It waited for the upstream: the poll's span and the read's.
    expect(pollSpans).toEqual(["jobtasks.snapshot.read (miss)", "tasks/get (undefined)"]);
  });

  it("one that another replica's snapshot answered is shared, and a replica's hold is held", async () => {
    for (const [answer, source] of [
      [{ kind: "shared", snapshot: workingSnapshot("deploying"), readAt: Date.now(), terminal: false }, "shared"],
      [{ kind: "held", forMs: 5_000, last: workingSnapshot("deploying") }, "held"],
    ] as Array<[SharedReadAnswer, string]>) {
      const { sources, upstreamReads, pollSpans } = await readOnceThrough(async () => answer);
      expect({ source, upstreamReads, sources, pollSpans }).toEqual({
        source,
        upstreamReads: 0,
        // Answered without the upstream: no span, as for a hit of this replica's cache.
        pollSpans: [],
        sources: sortedSources([
          ["miss", 1],
          [source, 1],
        ]),
      });
      await observed?.close();
      observed = undefined;
    }
  });
});

describe("Telemetry.snapshotRead", () => {
  it("counts the source known when the read settled; one given later changes neither the count nor the span", async () => {
    observed = startTestTelemetry();
    // The SDK warns through diag when an ended span is written to.
    const warnings: string[] = [];
    const record = (message: string) => void warnings.push(message);
    diag.setLogger(
      { error: record, warn: record, info: () => {}, debug: () => {}, verbose: () => {} },
      DiagLogLevel.WARN,
    );
    let late: (() => void) | undefined;
    await observed.telemetry.snapshotRead("scripted", async ({ answered }) => {
      answered("miss");
      late = () => answered("shared");
      return "answered";
    });
    late!();
    const sources = samplesOf(await observed.prometheusText(), "jobtasks_snapshot_reads_total").map((sample) => [
      sample.labels["jobtasks_snapshot_source"],
      sample.value,
    ]);
    expect(sources).toEqual([["miss", 1]]);
    expect(observed.span("jobtasks.snapshot.read").attributes["jobtasks.snapshot.source"]).toBe("miss");
    diag.disable();
    expect(warnings).toEqual([]);
  });
});
