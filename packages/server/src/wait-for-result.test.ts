import { describe, expect, it } from "vitest";
import { createSilentLogger } from "./logger.js";
import { SnapshotReader } from "./snapshot-reader.js";
import { waitForResult } from "./wait-for-result.js";
import { completedSnapshot, createScriptedAdapter } from "../../../test/support/scripted-adapter.js";

describe("waitForResult (the wait mode's synchronous path)", () => {
  it("reads the job once more at the deadline instead of giving up one poll interval early", async () => {
    const logger = createSilentLogger();
    const scripted = createScriptedAdapter({ pollIntervalMs: 1_000 });
    const tool = scripted.adapter.tools[0]!;
    const { ref } = await tool.doStart(
      { label: "edge", startAs: "working" },
      { signal: new AbortController().signal, principal: "alice", logger },
    );
    const job = scripted.onlyJob();
    // Reads at 0 and 1 s see it working; it has finished by the third read, due at the 1.5 s deadline.
    const read = scripted.adapter.doGetStatus.bind(scripted.adapter);
    scripted.adapter.doGetStatus = async (jobRef, context) => {
      if (scripted.calls.getStatus === 2) scripted.update(job, completedSnapshot("made it"));
      return read(jobRef, context);
    };
    const result = await waitForResult({
      reader: new SnapshotReader({ logger, snapshotCacheMs: 0 }),
      target: { instance: "scripted", adapter: scripted.adapter, ref },
      context: {
        signal: new AbortController().signal,
        principal: "alice",
        logger: { debug() {}, info() {}, warn() {}, error() {} },
      },
      waitMs: 1_500,
      pollIntervalMs: 1_000,
      toolName: "scripted_job",
      logger,
    });
    expect(result).toMatchObject({ content: [{ type: "text", text: "made it" }] });
    expect(result.isError).not.toBe(true);
    expect(scripted.calls.getStatus).toBe(3);
    expect(job.cancelRequested).toBe(false);
  });
});

describe("waitForResult and upstream events", () => {
  it("reads again as soon as the job reports a change, not at its next poll", async () => {
    const logger = createSilentLogger();
    const scripted = createScriptedAdapter({ pollIntervalMs: 60_000 });
    const { ref } = await scripted.adapter.tools[0]!.doStart(
      { label: "evented", startAs: "working" },
      { signal: new AbortController().signal, principal: "alice", logger },
    );
    let announce!: () => void;
    const changed = new Promise<void>((resolve) => (announce = resolve));
    const startedAt = Date.now();
    const waiting = waitForResult({
      reader: new SnapshotReader({ logger, snapshotCacheMs: 0 }),
      target: { instance: "scripted", adapter: scripted.adapter, ref },
      context: {
        signal: new AbortController().signal,
        principal: "alice",
        logger: { debug() {}, info() {}, warn() {}, error() {} },
      },
      waitMs: 60_000,
      pollIntervalMs: 60_000,
      toolName: "scripted_job",
      logger,
      changed: () => changed,
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    scripted.update(scripted.onlyJob(), completedSnapshot("woken"));
    announce();
    expect(await waiting).toMatchObject({ content: [{ type: "text", text: "woken" }] });
    expect(Date.now() - startedAt).toBeLessThan(1000);
  });
});
