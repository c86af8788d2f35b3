import { describe, expect, it } from "vitest";
import { cliBin, cliEnvironment, demoConfig, quietStartupStderr, repositoryRoot } from "./support/cli-process.js";
import { discoverOverStdio } from "./support/host-snippets.js";

/**
 * Claude Code files every stderr line of a stdio server as an error in its MCP log: over stdio the server
 * writes warnings and errors only, unless a level is asked for.
 */

function serveOverStdio(logLevel: string | undefined, flags: string[] = []) {
  const { JOBTASKS_LOG_LEVEL: _level, ...environment } = cliEnvironment({
    DEMO_API_URL: "http://127.0.0.1:9/",
    JOBTASKS_SECRET: "stdio-log-level-test-secret-0123456789abcdef",
  });
  return discoverOverStdio({
    command: process.execPath,
    args: [cliBin, "serve", "--config", demoConfig, "--stdio", ...flags],
    cwd: repositoryRoot,
    env: logLevel === undefined ? environment : { ...environment, JOBTASKS_LOG_LEVEL: logLevel },
  });
}

describe("jobtasks serve --stdio", () => {
  it("writes nothing on stderr at start-up when no log level is asked for (on Node 20, the one notice)", async () => {
    const discovery = await serveOverStdio(undefined);
    expect(discovery.answer["result"]?.["capabilities"]).toBeDefined();
    expect(discovery.stderr).toBe(quietStartupStderr);
  });

  it("writes its start-up lines when JOBTASKS_LOG_LEVEL asks for info", async () => {
    const discovery = await serveOverStdio("info");
    expect(discovery.stderr).toContain("serving MCP on stdio");
  });

  it("writes its start-up lines when --log-level asks for info, whatever JOBTASKS_LOG_LEVEL says", async () => {
    const discovery = await serveOverStdio("error", ["--log-level", "info"]);
    expect(discovery.stderr).toContain("serving MCP on stdio");
  });
});
