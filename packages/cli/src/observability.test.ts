import { afterEach, describe, expect, it } from "vitest";
import { TaskIdSealer, createSilentLogger, startHttpServer } from "@jobtasks/server";
import { planObservability, startObservability, type StartedObservability } from "./observability.js";
import { buildTaskService } from "./server-settings.js";
import { serverSettingsSchema } from "./config-schema.js";
import type { LoadedConfig } from "./load-config.js";

// This file registers the SDK globally, as jobtasks serve does; vitest runs each test file in its own context.
let running: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of running.reverse()) await stop();
  running = [];
});

describe("startObservability with server.metrics", () => {
  it("keeps the duration histograms in the process, and a scrape shows each once, under the SDK's resource", async () => {
    const settings = serverSettingsSchema.parse({ metrics: {} });
    const observability: StartedObservability = await startObservability(
      planObservability(settings, {}),
      { name: "jobtasks-test", version: "0.0.0" },
      {},
      createSilentLogger(),
    );
    running.push(() => observability.shutdown());
    expect(observability.histograms).toBeDefined();
    const service = buildTaskService(
      { server: settings, adapters: [] } as unknown as LoadedConfig,
      new TaskIdSealer({ secret: "observability-test-secret-0123456789abcdef" }),
      createSilentLogger(),
      undefined,
      observability.histograms,
    );
    running.push(() => service.close());
    expect(service.telemetry.metering).toBe(true);
    const server = await startHttpServer({
      service,
      logger: createSilentLogger(),
      name: "jobtasks-test",
      version: "0.0.0",
      port: 0,
      metrics: observability.metricsEndpoint!,
    });
    running.push(() => server.close());
    const origin = new URL(server.url).origin;
    for (let request = 0; request < 3; request++) expect((await fetch(`${origin}/healthz`)).status).toBe(200);

    // The three answers were recorded in the process's histograms...
    const healthz = observability
      .histograms!.collect()
      .find((metric) => metric.descriptor.name === "http.server.request.duration")
      ?.dataPoints.find((point) => point.attributes["http.route"] === "/healthz");
    expect(healthz?.value.count).toBe(3);
    // ...and the scrape shows them, the histogram's family once, under the SDK's resource.
    const exposition = await (await fetch(`${origin}/metrics`)).text();
    expect(exposition).toMatch(/^http_server_request_duration_count\{[^}]*http_route="\/healthz"[^}]*\} 3$/m);
    expect(exposition.match(/^# TYPE http_server_request_duration histogram$/gm)).toHaveLength(1);
    expect(exposition).toMatch(/^target_info\{[^}]*service_name="jobtasks-test"/m);
  });

  it("has nothing to keep without server.metrics", async () => {
    const observability = await startObservability(
      planObservability(serverSettingsSchema.parse({}), {}),
      { name: "jobtasks-test", version: "0.0.0" },
      {},
      createSilentLogger(),
    );
    expect(observability.histograms).toBeUndefined();
    expect(observability.metricsEndpoint).toBeUndefined();
  });
});
