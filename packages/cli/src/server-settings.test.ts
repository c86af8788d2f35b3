import { describe, expect, it } from "vitest";
import { ConfigError } from "@jobtasks/core";
import { readServerSettings } from "./server-settings.js";
import type { LoadedConfig } from "./load-config.js";

const config = { server: { logLevel: "info" }, adapters: [] } as unknown as LoadedConfig;

describe("readServerSettings", () => {
  it("listens on loopback unless told otherwise; an empty HOST or PORT counts as unset", () => {
    expect(readServerSettings(config, {})).toMatchObject({ host: "127.0.0.1", port: 3000, logLevel: "info", tokens: undefined });
    expect(readServerSettings(config, { HOST: "", PORT: "" })).toMatchObject({ host: "127.0.0.1", port: 3000 });
    expect(readServerSettings(config, { HOST: "0.0.0.0", PORT: "8080" })).toMatchObject({ host: "0.0.0.0", port: 8080 });
    expect(readServerSettings(config, { HOST: "0.0.0.0" }, { host: "::1", port: 0 })).toMatchObject({ host: "::1", port: 0 });
  });

  it("refuses a bad PORT, log level or token list, naming the variable", () => {
    expect(() => readServerSettings(config, { PORT: "http" })).toThrow(ConfigError);
    expect(() => readServerSettings(config, { JOBTASKS_LOG_LEVEL: "verbose" })).toThrow(/JOBTASKS_LOG_LEVEL/);
    expect(() => readServerSettings(config, { JOBTASKS_AUTH_TOKENS: "nobody" })).toThrow(/JOBTASKS_AUTH_TOKENS/);
  });
});
