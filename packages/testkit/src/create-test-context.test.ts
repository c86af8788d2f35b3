import { describe, expect, it } from "vitest";
import { createRecordingLogger, createTestContext } from "./create-test-context.js";

describe("createTestContext", () => {
  it("gives a fresh, unaborted signal, principal test, and a logger that records silently", () => {
    const first = createTestContext();
    const second = createTestContext();
    expect(first.principal).toBe("test");
    expect(first.signal.aborted).toBe(false);
    expect(first.signal).not.toBe(second.signal);
    first.logger.warn({ attempt: 2 }, "retrying");
    expect(first.logEntries).toEqual([{ level: "warn", fields: { attempt: 2 }, message: "retrying" }]);
    expect(second.logEntries).toEqual([]);
  });

  it("records into an array passed in, so that several contexts share one log", () => {
    const logEntries: Parameters<typeof createRecordingLogger>[0] = [];
    createTestContext({ logEntries }).logger.info({}, "first");
    createTestContext({ logEntries }).logger.error({ code: 7 }, "second");
    expect(logEntries.map((entry) => entry.message)).toEqual(["first", "second"]);
  });

  it("applies overrides", () => {
    const controller = new AbortController();
    controller.abort();
    const context = createTestContext({ signal: controller.signal, principal: "alice" });
    expect(context.signal.aborted).toBe(true);
    expect(context.principal).toBe("alice");
  });
});

describe("createRecordingLogger", () => {
  it("keeps entries in order, in the array it was given", () => {
    const entries: Parameters<typeof createRecordingLogger>[0] = [];
    const { logger } = createRecordingLogger(entries);
    logger.info({ jobId: "1" }, "started");
    logger.error({}, "failed");
    expect(entries).toEqual([
      { level: "info", fields: { jobId: "1" }, message: "started" },
      { level: "error", fields: {}, message: "failed" },
    ]);
  });
});
