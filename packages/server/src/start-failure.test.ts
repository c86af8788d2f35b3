import { SdkError, SdkErrorCode } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { UpstreamError } from "@jobtasks/core";
import { startFailureResult } from "./start-failure.js";
import type { RegisteredTool } from "./tool-registry.js";
import { capturingLogger } from "./test-support/capturing-logger.js";

const registered = { instance: "ci", tool: { name: "run_ci" } } as unknown as RegisteredTool;
const info = 30;
const error = 50;

describe("startFailureResult", () => {
  it.each([
    ["the SDK's reason when the connection closed", new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed")],
    ["the AbortError of a call cut short", new DOMException("This operation was aborted", "AbortError")],
  ])("logs a client that left during doStart at info, without a stack: %s", (_label, thrown) => {
    const { logger, entries } = capturingLogger();
    const result = startFailureResult(registered, thrown, logger);
    expect(result.isError).toBe(true);
    expect(entries.map((entry) => [entry.level, entry.msg])).toEqual([
      [info, "the client left while the job was being started"],
    ]);
    expect(entries[0]?.err).toBeUndefined();
  });

  it("still logs an adapter's own unexpected error at error level, a timeout or another SDK error included", () => {
    for (const thrown of [
      new TypeError("undefined is not a function"),
      new DOMException("timed out", "TimeoutError"),
      new SdkError(SdkErrorCode.RequestTimeout, "late"),
    ]) {
      const { logger, entries } = capturingLogger();
      const result = startFailureResult(registered, thrown, logger);
      expect(result.content).toEqual([
        { type: "text", text: "Could not start run_ci: an unexpected error in the adapter (see the server log)." },
      ]);
      expect(entries.map((entry) => [entry.level, entry.msg])).toEqual([[error, "adapter failed to start a job"]]);
    }
  });

  it("answers an upstream's refusal as a tool error without logging it", () => {
    const { logger, entries } = capturingLogger();
    const result = startFailureResult(
      registered,
      new UpstreamError("GitHub refused access (HTTP 403)", { isRetryable: false }),
      logger,
    );
    expect(result.content).toEqual([
      { type: "text", text: "Could not start run_ci: GitHub refused access (HTTP 403)." },
    ]);
    expect(entries).toEqual([]);
  });
});
