import { describe, expect, it } from "vitest";
import { JobNotFoundError } from "@jobtasks/core";
import { createTestContext } from "@jobtasks/testkit";
import { conformanceAdapter } from "./conformance-adapter.js";
import { adapterDefinition } from "./conformance-adapter-definition.js";

/** The fixture jobs on a clock the test moves, straight through the adapter contract. */
function setup(maxJobs?: number) {
  let clock = 1_000_000;
  const adapter = conformanceAdapter({ now: () => clock, ...(maxJobs ? { maxJobs } : {}) });
  const context = createTestContext();
  const tool = (name: string) => adapter.tools.find((candidate) => candidate.name === name)!;
  const start = (name: string, input: unknown = {}, inputResponses = {}) =>
    tool(name).doStart(input, { ...context, inputResponses });
  return { adapter, context, start, advance: (ms: number) => (clock += ms) };
}

describe("the conformance fixtures as jobs", () => {
  it("slow_compute works for its seconds, then completes; seconds 0 is finished at its start", async () => {
    const { adapter, context, start, advance } = setup();
    expect((await start("slow_compute", { seconds: 0 })).snapshot).toMatchObject({ status: "completed" });
    const { ref } = await start("slow_compute", { seconds: 2, label: "sum" });
    expect(await adapter.doGetStatus(ref, context)).toMatchObject({ status: "working", message: "sum: 2 s left" });
    advance(2_000);
    expect(await adapter.doGetStatus(ref, context)).toMatchObject({
      status: "completed",
      result: { content: [{ type: "text", text: "sum finished after 2 s" }] },
    });
  });

  it("a cancelled job stays cancelled; a finished one stays as it ended", async () => {
    const { adapter, context, start, advance } = setup();
    const running = await start("slow_compute", { seconds: 60 });
    await adapter.doCancel!(running.ref, context);
    advance(60_000);
    expect(await adapter.doGetStatus(running.ref, context)).toMatchObject({ status: "cancelled" });
    const finished = await start("slow_compute", { seconds: 1 });
    advance(1_000);
    await adapter.doCancel!(finished.ref, context);
    expect(await adapter.doGetStatus(finished.ref, context)).toMatchObject({ status: "completed" });
  });

  it("failing_job ends with a tool error; protocol_error_job ends failed with a JSON-RPC error and no result", async () => {
    const { adapter, context, start, advance } = setup();
    const failing = await start("failing_job");
    const crashing = await start("protocol_error_job");
    expect(failing.snapshot).toMatchObject({ status: "working" });
    advance(1_000);
    expect(await adapter.doGetStatus(failing.ref, context)).toMatchObject({
      status: "completed",
      result: { isError: true },
    });
    const crashed = await adapter.doGetStatus(crashing.ref, context);
    expect(crashed).toMatchObject({ status: "failed", error: { code: -32603 } });
    expect(crashed.result).toBeUndefined();
  });

  it("confirm_delete waits for its one answer; multi_input for both of its two, in any order", async () => {
    const { adapter, context, start } = setup();
    const deleting = await start("confirm_delete", { filename: "a.txt" });
    expect(Object.keys(deleting.snapshot?.inputRequests ?? {})).toEqual(["confirm"]);
    await adapter.doRespond!(deleting.ref, { confirm: { action: "decline" } }, context);
    expect(await adapter.doGetStatus(deleting.ref, context)).toMatchObject({
      status: "completed",
      result: { content: [{ text: "Kept a.txt" }] },
    });
    const asking = await start("multi_input");
    await adapter.doRespond!(asking.ref, { confirm: { action: "accept", content: { confirm: true } } }, context);
    expect(Object.keys((await adapter.doGetStatus(asking.ref, context)).inputRequests ?? {})).toEqual(["name"]);
    await adapter.doRespond!(asking.ref, { name: { action: "accept", content: { name: "Ada" } } }, context);
    expect(await adapter.doGetStatus(asking.ref, context)).toMatchObject({
      status: "completed",
      result: { content: [{ text: "name: Ada, confirmed: true" }] },
    });
  });

  it("test_tool_with_task asks before its start and greets with the answer it started with", async () => {
    const { adapter, context, start, advance } = setup();
    const tool = adapter.tools.find((candidate) => candidate.name === "test_tool_with_task")!;
    expect(Object.keys(tool.inputBeforeStart!({}, {}) ?? {})).toEqual(["user_name"]);
    const answer = { user_name: { action: "accept" as const, content: { name: "Alice" } } };
    expect(tool.inputBeforeStart!({}, answer)).toBeUndefined();
    const { ref } = await start("test_tool_with_task", {}, answer);
    advance(500);
    expect(await adapter.doGetStatus(ref, context)).toMatchObject({ result: { content: [{ text: "Hello, Alice!" }] } });
  });

  it("forgets the oldest job past maxJobs, which then reads as not found", async () => {
    const { adapter, context, start } = setup(2);
    const first = await start("greet", { name: "one" });
    await start("greet", { name: "two" });
    await start("greet", { name: "three" });
    await expect(adapter.doGetStatus(first.ref, context)).rejects.toBeInstanceOf(JobNotFoundError);
  });

  it("refuses an unknown option in the config by name", () => {
    const parsed = adapterDefinition.optionsSchema.safeParse({ pollIntervalMs: 100, colour: "blue" });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain("colour");
  });
});
