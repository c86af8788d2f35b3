import { describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../packages/cli/src/load-config.js";
import { planObservability } from "../packages/cli/src/observability.js";

/** examples/observability as its README says to use it: the config loads, with metrics on, and the OTEL_* plan is read. */

const config = fileURLToPath(new URL("../examples/observability/jobtasks.config.yaml", import.meta.url));

describe("the observability example", () => {
  it("serves metrics on their own port behind the token from METRICS_TOKEN, and traces to the Collector", async () => {
    const environment = { METRICS_TOKEN: "example-metrics-token-0123456789", METRICS_HOST: "0.0.0.0" };
    const loaded = await loadConfig(config, environment);
    expect(loaded.server.metrics).toEqual({ port: 9464, host: "0.0.0.0", token: environment.METRICS_TOKEN });
    expect(loaded.adapters.map((adapter) => adapter.name)).toEqual(["demo"]);
    expect(planObservability(loaded.server, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://otel-collector:4318" })).toEqual({
      metrics: loaded.server.metrics,
      traces: { exporter: "otlp", url: "http://otel-collector:4318/v1/traces", protocol: "http/protobuf" },
    });
  });

  it("refuses a token shorter than 16 characters, naming the field", async () => {
    await expect(loadConfig(config, { METRICS_TOKEN: "short" })).rejects.toThrow(/server\.metrics\.token/);
  });
});

describe("the OTEL_* variables", () => {
  const settings = { metrics: undefined } as never;
  it("load nothing without them, and nothing with OTEL_SDK_DISABLED", () => {
    expect(planObservability(settings, {})).toEqual({ metrics: undefined, traces: undefined });
    expect(
      planObservability(settings, { OTEL_SDK_DISABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: "http://x:4318" }),
    ).toEqual({
      metrics: undefined,
      traces: undefined,
    });
  });

  it("name the variable at fault", () => {
    expect(() => planObservability(settings, { OTEL_TRACES_EXPORTER: "zipkin" })).toThrow(/OTEL_TRACES_EXPORTER/);
    expect(() =>
      planObservability(settings, {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://x:4318",
        OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      }),
    ).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL/);
    expect(() => planObservability(settings, { OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
  });

  it("follow the SDK's rules: a signal endpoint wins, console and none are exporters, otlp alone means the local collector", () => {
    expect(
      planObservability(settings, {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://base:4318/",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://traces:4318/custom",
      }).traces,
    ).toEqual({ exporter: "otlp", url: "http://traces:4318/custom", protocol: "http/protobuf" });
    expect(planObservability(settings, { OTEL_TRACES_EXPORTER: "console" }).traces).toEqual({ exporter: "console" });
    expect(
      planObservability(settings, { OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://x" }).traces,
    ).toBeUndefined();
    expect(planObservability(settings, { OTEL_TRACES_EXPORTER: "otlp" }).traces).toEqual({
      exporter: "otlp",
      url: "http://localhost:4318/v1/traces",
      protocol: "http/protobuf",
    });
  });
});
