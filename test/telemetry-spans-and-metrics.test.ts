import { afterEach, describe, expect, it } from "vitest";
import { SpanKind } from "@opentelemetry/api";
import { demoAdapter } from "@jobtasks/demo";
import { noSharedState } from "@jobtasks/server";
import { capturingLogger } from "../packages/server/src/test-support/capturing-logger.js";
import { startDemoApiForTests } from "./support/demo-stack.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { envelope, rawCall } from "./support/raw-rpc.js";
import { samplesOf, startTestTelemetry } from "./support/test-telemetry.js";

/**
 * A demo pipeline through the HTTP server with the SDK registered: the spans of one MCP request and its
 * children, the trace context taken from `_meta` and passed upstream, and the metrics a scrape gets.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const callerTraceId = "4bf92f3577b34da6a3ce929d0e0e4736";
const callerSpanId = "00f067aa0ba902b7";

function millisOf(time: [number, number]): number {
  return time[0] * 1000 + time[1] / 1e6;
}

async function startObservedDemo(snapshotCacheMs = 60_000, telemetryOptions: { tracePollsFromMemory?: boolean } = {}) {
  const observed = startTestTelemetry(telemetryOptions);
  cleanup.defer(() => observed.close());
  const api = cleanup.add(await startDemoApiForTests());
  const sentHeaders: Array<{ url: string; traceparent: string | null }> = [];
  const recordingFetch: typeof fetch = (input, init) => {
    sentHeaders.push({ url: String(input), traceparent: new Headers(init?.headers).get("traceparent") });
    return fetch(input, init);
  };
  const server = cleanup.add(
    await startInProcessServer({
      adapters: [
        { name: "demo", adapter: demoAdapter({ baseUrl: api.url, pollIntervalMs: 20, fetch: recordingFetch }) },
      ],
      service: { telemetry: observed.telemetry, snapshotCacheMs },
    }),
  );
  return { observed, server, sentHeaders };
}

describe("telemetry of MCP requests", () => {
  it("continues the caller's trace from _meta: a server span per request, a client span per upstream request carrying traceparent", async () => {
    const { observed, server, sentHeaders } = await startObservedDemo(1000);
    const call = await rawCall(
      server.url,
      "tools/call",
      { name: "demo_pipeline", arguments: {} },
      { meta: { ...envelope(true), traceparent: `00-${callerTraceId}-${callerSpanId}-01` } },
    );
    const taskId = call.body?.result?.["taskId"] as string;
    expect(taskId).toEqual(expect.any(String));

    const toolsCall = observed.span("tools/call demo_pipeline");
    expect(toolsCall.kind).toBe(SpanKind.SERVER);
    expect(toolsCall.spanContext().traceId).toBe(callerTraceId);
    expect(toolsCall.parentSpanContext?.spanId).toBe(callerSpanId);
    expect(toolsCall.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "demo_pipeline",
    });
    expect(toolsCall.attributes["jobtasks.task.status"]).toEqual(expect.any(String));

    const submit = observed.span("POST /jobs");
    expect(submit.kind).toBe(SpanKind.CLIENT);
    expect(submit.parentSpanContext?.spanId).toBe(toolsCall.spanContext().spanId);
    expect(submit.attributes).toMatchObject({
      "url.template": "/jobs",
      "http.request.method": "POST",
      "http.response.status_code": 201,
      "jobtasks.adapter.instance": "demo",
    });
    // The upstream received the client span's own context.
    expect(sentHeaders[0]?.traceparent).toBe(`00-${callerTraceId}-${submit.spanContext().spanId}-01`);

    // The first poll once the start's snapshot is stale goes upstream: its request's span, started when
    // the read found it must wait, from the request's own start, with a snapshot-read child beside the
    // upstream request.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const pollSentAt = Date.now();
    await rawCall(server.url, "tasks/get", { taskId });
    const firstGet = observed.span("tasks/get");
    expect(firstGet.kind).toBe(SpanKind.SERVER);
    expect(firstGet.attributes).toMatchObject({ "mcp.method.name": "tasks/get", "jobtasks.task.status": "working" });
    const firstRead = observed.span("jobtasks.snapshot.read");
    expect(firstRead.parentSpanContext?.spanId).toBe(firstGet.spanContext().spanId);
    expect(firstRead.attributes["jobtasks.snapshot.source"]).toBe("miss");
    // Each span of the SDK sets its clock against Date.now() when it is made, to the millisecond: two
    // spans' times compare to within that.
    const clockGrain = 1;
    expect(millisOf(firstGet.startTime)).toBeLessThanOrEqual(millisOf(firstRead.startTime) + clockGrain);
    expect(millisOf(firstGet.startTime)).toBeGreaterThanOrEqual(pollSentAt - 5);
    expect(millisOf(firstGet.endTime)).toBeGreaterThanOrEqual(millisOf(firstRead.endTime) - clockGrain);
    expect(observed.span("GET /jobs/{job_id}").parentSpanContext?.spanId).toBe(firstGet.spanContext().spanId);
    // A poll answered from the cache costs no span: the metrics count it.
    await rawCall(server.url, "tasks/get", { taskId });
    expect(observed.spans().filter((span) => span.name === "tasks/get")).toHaveLength(1);
    expect(observed.spans().filter((span) => span.name === "jobtasks.snapshot.read")).toHaveLength(1);
    const hits = samplesOf(await observed.prometheusText(), "jobtasks_snapshot_reads_total").find(
      (sample) => sample.labels["jobtasks_snapshot_source"] === "hit",
    );
    expect(hits?.value).toBeGreaterThanOrEqual(1);

    // Nothing the caller could not already see is named: no task id, no job id, no principal.
    const jobId = /\/jobs\/([^/?]+)/.exec(sentHeaders.find((sent) => /\/jobs\/[^/]+/.test(sent.url))?.url ?? "")?.[1];
    const recorded = JSON.stringify(observed.spans().map((span) => ({ name: span.name, attributes: span.attributes })));
    expect(recorded).not.toContain(taskId);
    if (jobId !== undefined) expect(recorded).not.toContain(jobId);
    expect(recorded).not.toContain('"local"');
  });

  it("traces a poll answered from memory when its caller's trace is sampled, when it fails, or when every poll is to be", async () => {
    const { observed, server } = await startObservedDemo();
    const call = await rawCall(server.url, "tools/call", { name: "demo_pipeline", arguments: {} });
    const taskId = call.body?.result?.["taskId"] as string;
    const polls = () => observed.spans().filter((span) => span.name === "tasks/get");
    // Answered from the start's snapshot: by the fast path, then (a traceparent in _meta) by the SDK's
    // handler, where a caller's trace that is not sampled (flags 00) asks for no span either.
    await rawCall(server.url, "tasks/get", { taskId });
    expect(polls()).toHaveLength(0);
    await rawCall(
      server.url,
      "tasks/get",
      { taskId },
      { meta: { ...envelope(true), traceparent: `00-${callerTraceId}-${callerSpanId}-00` } },
    );
    expect(polls()).toHaveLength(0);
    await rawCall(
      server.url,
      "tasks/get",
      { taskId },
      { meta: { ...envelope(true), traceparent: `00-${callerTraceId}-${callerSpanId}-01` } },
    );
    expect(polls()).toHaveLength(1);
    expect(polls()[0]!.spanContext().traceId).toBe(callerTraceId);
    expect(polls()[0]!.attributes["jobtasks.snapshot.source"]).toBe("hit");
    await rawCall(server.url, "tasks/get", { taskId: `${taskId}x` });
    expect(polls()).toHaveLength(2);
    expect(polls()[1]!.attributes["error.type"]).toBe("-32602");

    const everyPoll = await startObservedDemo(60_000, { tracePollsFromMemory: true });
    const started = await rawCall(everyPoll.server.url, "tools/call", { name: "demo_pipeline", arguments: {} });
    await rawCall(everyPoll.server.url, "tasks/get", { taskId: started.body?.result?.["taskId"] as string });
    const traced = everyPoll.observed.span("tasks/get");
    expect(traced.attributes).toMatchObject({ "jobtasks.snapshot.source": "hit", "jobtasks.task.status": "working" });
  });

  it("logs a poll's unexpected failure in the poll's trace, the span it had deferred started for it", async () => {
    const observed = startTestTelemetry();
    cleanup.defer(() => observed.close());
    const api = cleanup.add(await startDemoApiForTests());
    const { logger, entries } = capturingLogger({ withTraceFields: true });
    let failReads = false;
    const server = cleanup.add(
      await startInProcessServer({
        adapters: [{ name: "demo", adapter: demoAdapter({ baseUrl: api.url, pollIntervalMs: 20 }) }],
        service: {
          telemetry: observed.telemetry,
          snapshotCacheMs: 0,
          // A shared cache that breaks: no protocol error, so the SDK's handler logs it as unexpected.
          sharedState: {
            ...noSharedState,
            snapshots: {
              ...noSharedState.snapshots,
              active: true,
              readThrough: (read) =>
                failReads ? Promise.reject(new Error("the cache broke")) : noSharedState.snapshots.readThrough(read),
            },
          },
        },
        logger,
      }),
    );
    const call = await rawCall(server.url, "tools/call", { name: "demo_pipeline", arguments: {} });
    const taskId = call.body?.result?.["taskId"] as string;
    failReads = true;
    const poll = await rawCall(server.url, "tasks/get", { taskId });
    expect(poll.body?.error?.code).toBe(-32603);
    const failed = observed.span("tasks/get");
    expect(failed.attributes["error.type"]).toBe("-32603");
    const logged = entries.find((entry) => entry.msg === "unexpected error while serving a request");
    expect(logged).toMatchObject({ trace_id: failed.spanContext().traceId, span_id: failed.spanContext().spanId });
  });

  it("continues a trace from the traceparent HTTP header when _meta has none", async () => {
    const { observed, server } = await startObservedDemo();
    await rawCall(server.url, "tools/list", {}, { headers: { traceparent: `00-${callerTraceId}-${callerSpanId}-01` } });
    const list = observed.span("tools/list");
    expect(list.spanContext().traceId).toBe(callerTraceId);
    expect(list.parentSpanContext?.spanId).toBe(callerSpanId);
  });

  it("counts requests, tasks, reads and upstream requests under bounded labels", async () => {
    const { observed, server, sentHeaders } = await startObservedDemo();
    const call = await rawCall(server.url, "tools/call", { name: "demo_pipeline", arguments: {} });
    const taskId = call.body?.result?.["taskId"] as string;
    await rawCall(server.url, "tasks/get", { taskId });
    await rawCall(server.url, "tasks/get", { taskId: `${taskId}x` });
    await rawCall(server.url, "tools/call", { name: "no_such_tool", arguments: {} });
    const text = await observed.prometheusText();

    const operations = samplesOf(text, "mcp_server_operation_duration_count");
    expect(operations).toContainEqual({ labels: expect.objectContaining({ mcp_method_name: "tools/call" }), value: 1 });
    // A task id that does not open: its JSON-RPC code is the error type.
    expect(operations).toContainEqual({
      labels: expect.objectContaining({ mcp_method_name: "tasks/get", error_type: "-32602" }),
      value: 1,
    });
    expect(samplesOf(text, "jobtasks_tasks_started_total")).toEqual([
      {
        labels: expect.objectContaining({ gen_ai_tool_name: "demo_pipeline", jobtasks_adapter_instance: "demo" }),
        value: 1,
      },
    ]);
    expect(samplesOf(text, "jobtasks_task_reads_total")).toContainEqual({
      labels: expect.objectContaining({ jobtasks_task_status: expect.any(String), jobtasks_adapter_instance: "demo" }),
      value: 1,
    });
    expect(
      samplesOf(text, "jobtasks_snapshot_reads_total").map((sample) => sample.labels["jobtasks_snapshot_source"]),
    ).toContain("hit");
    expect(samplesOf(text, "jobtasks_upstream_request_duration_count")).toContainEqual({
      labels: expect.objectContaining({
        jobtasks_adapter_instance: "demo",
        jobtasks_upstream_operation: "POST /jobs",
        http_response_status_code: "201",
      }),
      value: 1,
    });
    expect(samplesOf(text, "http_server_request_duration_count")).toContainEqual({
      labels: expect.objectContaining({ http_route: "/mcp", http_request_method: "POST" }),
      value: 4,
    });
    const jobId = /\/jobs\/([^/?]+)/.exec(sentHeaders.find((sent) => /\/jobs\/[^/]+/.test(sent.url))?.url ?? "")?.[1];
    expect(text).not.toContain(taskId);
    expect(text).not.toContain("no_such_tool");
    if (jobId !== undefined) expect(text).not.toContain(jobId);
  });
});
