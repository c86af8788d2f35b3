import { describe, expect, it } from "vitest";
import { demoJobResponseSchema } from "./demo-job-response.js";
import { mapDemoStatus } from "./map-demo-status.js";
import { demoPipelineOutputSchema } from "./demo-pipeline-result.js";
import { loadJobFixture } from "../test-support/load-fixture.js";

const job = (fixture: string) => demoJobResponseSchema.parse(loadJobFixture(fixture));

describe("mapDemoStatus", () => {
  it.each([
    ["job-queued", "queued", "working", "queued", undefined],
    ["job-running", "running", "working", "step 1/4: checkout", undefined],
    [
      "job-waiting-for-approval",
      "waiting_for_approval",
      "input_required",
      "Approve the deploy of pipeline cart-service? (step 1/4 done)",
      undefined,
    ],
    ["job-succeeded", "succeeded", "completed", "succeeded", false],
    ["job-failed", "failed", "completed", "failed (step 3/3: test)", true],
    ["job-rejected", "rejected", "completed", "the deploy approval was rejected: not on a Friday", true],
    ["job-cancelled", "cancelled", "cancelled", "cancelled", undefined],
    // A status the API might add one day: keep waiting, keep the raw value.
    [
      "job-future-status",
      "paused_for_maintenance",
      "working",
      'demo API status "paused_for_maintenance" (step 1/4: checkout)',
      undefined,
    ],
  ])("%s (%s) maps to %s", (fixture, rawStatus, status, message, isError) => {
    const snapshot = mapDemoStatus(job(fixture));
    expect(snapshot.status).toBe(status);
    expect(snapshot.rawStatus).toBe(rawStatus);
    expect(snapshot.message).toBe(message);
    expect(snapshot.result?.isError).toBe(isError);
    expect(snapshot.updatedAt).toBe(loadJobFixture(fixture).updatedAt);
  });

  it("asks for the approval with one form request keyed by the approval id", () => {
    const record = job("job-waiting-for-approval");
    const snapshot = mapDemoStatus(record);
    const approvalId = record.approval?.id ?? "";
    expect(Object.keys(snapshot.inputRequests ?? {})).toEqual([approvalId]);
    // The deploy gate is an approval: the server lets only the approval scope answer it.
    expect(snapshot.approvalKeys).toEqual([approvalId]);
    const request = snapshot.inputRequests?.[approvalId];
    expect(request?.method).toBe("elicitation/create");
    expect(request?.params.mode).toBe("form");
    expect(request?.params.message).toContain("Approve the deploy of pipeline cart-service? (step 1/4 done)");
    expect(request?.params.requestedSchema).toMatchObject({
      type: "object",
      properties: { approve: { type: "boolean" }, comment: { type: "string" } },
      required: ["approve"],
    });
  });

  it("treats a waiting job without a pending approval as working", () => {
    const record = { ...job("job-waiting-for-approval"), approval: null };
    expect(mapDemoStatus(record)).toMatchObject({ status: "working", message: "waiting for approval" });
  });

  it("summarises a succeeded pipeline, with structured content matching the output schema", () => {
    const result = mapDemoStatus(job("job-succeeded")).result;
    expect(result?.content).toEqual([
      { type: "text", text: "Pipeline cart-service succeeded: 3/3 steps (checkout, install, test) in 3.4 s." },
    ]);
    expect(result?.structuredContent).toEqual({
      status: "succeeded",
      name: "cart-service",
      steps: [
        { name: "checkout", status: "succeeded" },
        { name: "install", status: "succeeded" },
        { name: "test", status: "succeeded" },
      ],
      durationMs: 3412,
    });
    expect(demoPipelineOutputSchema.safeParse(result?.structuredContent).success).toBe(true);
  });

  it("reports a failed pipeline with the failing step and a bounded log excerpt", () => {
    const record = job("job-failed");
    record.logs = [...Array.from({ length: 50 }, (_, index) => `noise ${index}`), "x".repeat(1000), ...record.logs];
    const result = mapDemoStatus(record).result;
    const text = (result?.content[0] as { text: string }).text;
    expect(text).toMatch(/^Pipeline cart-service failed at step 3\/3 \(test\) after \d+ ms\./);
    expect(text).toContain("AssertionError: expected 90 to be 85");
    const excerpt = result?.structuredContent?.logExcerpt as string[];
    expect(excerpt).toHaveLength(20);
    expect(excerpt.every((line) => line.length <= 301)).toBe(true);
    expect(result?.structuredContent).toMatchObject({ status: "failed", failedStep: "test" });
    expect(demoPipelineOutputSchema.safeParse(result?.structuredContent).success).toBe(true);
  });

  it("says why a rejected pipeline stopped", () => {
    const result = mapDemoStatus(job("job-rejected")).result;
    expect(result?.content[0]).toEqual({
      type: "text",
      text: "The deploy approval was rejected: not on a Friday. Pipeline cart-service stopped after step 1/3.",
    });
    expect(result?.structuredContent).toMatchObject({ status: "rejected", approvalComment: "not on a Friday" });
  });

  it("gives the same snapshot for the same finished record", () => {
    expect(mapDemoStatus(job("job-failed"))).toEqual(mapDemoStatus(job("job-failed")));
  });
});
