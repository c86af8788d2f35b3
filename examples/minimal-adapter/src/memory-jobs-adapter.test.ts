import { AdapterConfigError, UpstreamError } from "@jobtasks/core";
import { createTestContext } from "@jobtasks/testkit";
import { describe, expect, it } from "vitest";
import { memoryJobs } from "./memory-jobs-adapter.js";
import { MemoryJobTable } from "./memory-jobs-api.js";

/** What the conformance suite cannot know: when a job finishes, what a declined question does, bad options. */
describe("memoryJobs", () => {
  it("presents its API key on every call: a wrong one is refused (401, not retryable), and declared as a secret", async () => {
    const table = new MemoryJobTable(1, "the-right-key-0123");
    const adapter = memoryJobs({ apiKey: "a-wrong-key-4567" }, { table });
    expect(adapter.secrets).toEqual(["a-wrong-key-4567"]);
    const refused = await adapter.tools[0]!.doStart({ askFirst: false }, createTestContext()).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(UpstreamError);
    expect(refused).toMatchObject({ httpStatus: 401, isRetryable: false });
    expect(String((refused as Error).message)).not.toContain("key-4567");
    const { ref } = await memoryJobs({ apiKey: "the-right-key-0123" }, { table }).tools[0]!.doStart(
      { askFirst: false },
      createTestContext(),
    );
    expect(ref.jobId).toBeGreaterThan(0);
  });

  it("finishes a started job on its pollsToFinish-th read", async () => {
    const adapter = memoryJobs({ pollsToFinish: 3 });
    const { ref } = await adapter.tools[0]!.doStart({ askFirst: false }, createTestContext());
    const statuses = [];
    for (let read = 0; read < 3; read += 1) statuses.push((await adapter.doGetStatus(ref, createTestContext())).status);
    expect(statuses).toEqual(["working", "working", "completed"]);
  });

  it("ends a declined job completed with isError, and keeps the question open when the form is dismissed", async () => {
    const adapter = memoryJobs();
    const { ref } = await adapter.tools[0]!.doStart({ askFirst: true }, createTestContext());
    const waiting = await adapter.doGetStatus(ref, createTestContext());
    const key = Object.keys(waiting.inputRequests ?? {})[0]!;
    await adapter.doRespond!(ref, { [key]: { action: "cancel" } }, createTestContext());
    expect((await adapter.doGetStatus(ref, createTestContext())).status).toBe("input_required");
    await adapter.doRespond!(ref, { [key]: { action: "decline" } }, createTestContext());
    expect(await adapter.doGetStatus(ref, createTestContext())).toMatchObject({
      status: "completed",
      rawStatus: "rejected",
      result: { isError: true },
    });
  });

  it("refuses options naming the option", () => {
    expect(() => memoryJobs({ pollsToFinish: 0 })).toThrow(AdapterConfigError);
    expect(() => memoryJobs({ pollsToFinish: 0 })).toThrow(/pollsToFinish/);
  });
});
