import { afterEach, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { DataPointType, MeterProvider, MetricReader, type HistogramMetricData } from "@opentelemetry/sdk-metrics";
import { Telemetry } from "./telemetry.js";
import { withHttpTelemetry } from "./http-telemetry.js";

class OnDemandReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** http.server.request.duration's points: [attributes, count, sum]. */
async function durations(reader: OnDemandReader) {
  const { resourceMetrics } = await reader.collect();
  const metric = resourceMetrics.scopeMetrics[0]?.metrics.find(
    (candidate) => candidate.descriptor.name === "http.server.request.duration",
  ) as HistogramMetricData | undefined;
  expect(metric?.dataPointType).toBe(DataPointType.HISTOGRAM);
  return (metric?.dataPoints ?? []).map((point) => [point.attributes, point.value.count, point.value.sum]);
}

describe("withHttpTelemetry", () => {
  it("records an answer ended by its handler at once, one still streaming when it ends, and an error answered after the handler failed", async () => {
    const reader = new OnDemandReader();
    const provider = new MeterProvider({ readers: [reader] });
    const telemetry = new Telemetry({ meter: provider.getMeter("test") });
    const routes = new Set(["/mcp", "/stream"]);
    server = createServer((request, response) => {
      void withHttpTelemetry(telemetry, request, response, routes, async () => {
        if (request.url === "/mcp?fail=1") throw new Error("the handler failed");
        if (request.url === "/stream") {
          // The handler returns with the answer still open, as an event stream's does.
          response.writeHead(200, { "content-type": "text/event-stream" });
          response.write("data: first\n\n");
          setTimeout(() => response.end("data: last\n\n"), 150);
          return;
        }
        response.writeHead(200).end("{}");
      }).catch(() => {
        // What the HTTP server does when its route fails: a 500, written after the handler settled.
        response.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect((await fetch(`${base}/mcp`)).status).toBe(200);
    const stream = await fetch(`${base}/stream`);
    expect(await stream.text()).toContain("last");
    expect((await fetch(`${base}/mcp?fail=1`)).status).toBe(500);
    // A path that is none of the routes is recorded without one (never the path sent).
    expect((await fetch(`${base}/elsewhere/123`)).status).toBe(200);

    const points = await durations(reader);
    expect(points).toHaveLength(4);
    const point = (status: number, route: string) =>
      points.find(
        ([attributes]) =>
          (attributes as Record<string, unknown>)["http.response.status_code"] === status &&
          (attributes as Record<string, unknown>)["http.route"] === route,
      );
    expect(point(200, "/mcp")?.[1]).toBe(1);
    // The stream is timed to its end, not to its handler's return.
    expect(point(200, "/stream")?.[1]).toBe(1);
    expect(point(200, "/stream")?.[2]).toBeGreaterThanOrEqual(0.14);
    expect(point(500, "/mcp")?.[0]).toMatchObject({ "http.request.method": "GET", "error.type": "500" });
    expect(point(200, undefined as never)?.[0]).toEqual({
      "http.request.method": "GET",
      "http.response.status_code": 200,
    });
    await provider.shutdown();
  });
});
