import { describe, expect, it } from "vitest";
import { ConfigError } from "@jobtasks/core";
import { readServerSettings, servesBeyondLoopbackWithoutTokens } from "./server-settings.js";
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

  it("warns of a server beyond loopback without tokens, and never of one on a loopback address", () => {
    const without = (host: string) => servesBeyondLoopbackWithoutTokens(readServerSettings(config, { HOST: host }));
    expect(["127.0.0.1", "127.0.0.2", "127.10.20.30", "localhost", "::1"].map(without)).toEqual([false, false, false, false, false]);
    expect(["0.0.0.0", "::", "192.0.2.10"].map(without)).toEqual([true, true, true]);
    expect(servesBeyondLoopbackWithoutTokens(readServerSettings(config, { HOST: "0.0.0.0", JOBTASKS_AUTH_TOKENS: "alice:alice-token-0123456789" }))).toBe(false);
  });
});
