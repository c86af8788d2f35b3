import { describe, expect, it } from "vitest";
import { statusOptionsSchema } from "./job-options-schema.js";
import { mapStatus } from "./map-rest-status.js";

const options = statusOptionsSchema.parse({
  url: "/jobs/{{job.id}}",
  field: ["state", "phase"],
  working: ["queued", "Running"],
  inputRequired: ["waiting"],
  completed: ["succeeded"],
  errorValues: ["failed"],
  cancelled: ["cancelled"],
  failed: ["expired"],
});

describe("mapStatus", () => {
  it.each([
    ["queued", "working", false],
    ["RUNNING", "working", false],
    ["waiting", "input_required", false],
    ["Succeeded", "completed", false],
    ["failed", "completed", true],
    ["cancelled", "cancelled", false],
    ["expired", "failed", false],
    ["quantum_superposition", "working", false],
  ] as const)("maps %s to %s (isError %s), keeping the raw value", (raw, status, isError) => {
    expect(mapStatus(options, 200, { state: raw })).toEqual({ gone: false, status, rawStatus: raw, isError });
  });

  it("reads the first path that yields a value", () => {
    expect(mapStatus(options, 200, { phase: "succeeded" })).toMatchObject({
      status: "completed",
      rawStatus: "succeeded",
    });
    expect(mapStatus(options, 200, { state: null, phase: "queued" })).toMatchObject({
      status: "working",
      rawStatus: "queued",
    });
  });

  it("treats a missing field, an empty body or a non-object body as the non-terminal default", () => {
    expect(mapStatus(options, 200, {})).toMatchObject({ status: "working", rawStatus: "" });
    expect(mapStatus(options, 200, undefined)).toMatchObject({ status: "working" });
    expect(mapStatus(options, 200, "text")).toMatchObject({ status: "working" });
    const inputByDefault = statusOptionsSchema.parse({ field: "state", unknown: "input_required" });
    expect(mapStatus(inputByDefault, 200, { state: "new" })).toMatchObject({ status: "input_required" });
  });

  it("applies HTTP rules before the body: 202 working, 404 and 410 gone", () => {
    expect(mapStatus(options, 202, { state: "succeeded" })).toMatchObject({ status: "working", rawStatus: "HTTP 202" });
    expect(mapStatus(options, 404, undefined)).toEqual({ gone: true, rawStatus: "HTTP 404" });
    expect(mapStatus(options, 410, undefined)).toEqual({ gone: true, rawStatus: "HTTP 410" });
  });

  it("supports a configured completed-by-HTTP rule (Location polling that ends in 200)", () => {
    const byHttp = statusOptionsSchema.parse({ field: "status", http: { "202": "working", "200": "completed" } });
    expect(mapStatus(byHttp, 200, { id: "resource" })).toMatchObject({ status: "completed", rawStatus: "HTTP 200" });
  });

  it("ignores HTTP rules for a submit body read as a first snapshot", () => {
    expect(mapStatus(options, undefined, { state: "queued" })).toMatchObject({ status: "working" });
  });

  it("renders booleans and numbers as raw text (Google's done, error codes)", () => {
    const google = statusOptionsSchema.parse({
      field: ["error.code", "done"],
      working: ["false"],
      completed: ["true"],
      cancelled: ["1"],
      errorValues: ["2", "13"],
    });
    expect(mapStatus(google, 200, { name: "operations/a" })).toMatchObject({ status: "working", rawStatus: "" });
    expect(mapStatus(google, 200, { done: false })).toMatchObject({ status: "working", rawStatus: "false" });
    expect(mapStatus(google, 200, { done: true, response: {} })).toMatchObject({ status: "completed", isError: false });
    expect(mapStatus(google, 200, { done: true, error: { code: 1 } })).toMatchObject({
      status: "cancelled",
      rawStatus: "1",
    });
    expect(mapStatus(google, 200, { done: true, error: { code: 13 } })).toMatchObject({
      status: "completed",
      isError: true,
    });
  });

  it("bounds a raw status that is an object or a long string, for messages, and still compares it whole", () => {
    const object = mapStatus(options, 200, { state: { detail: "x".repeat(5_000) } });
    expect(object).toMatchObject({ status: "working" });
    expect(object.rawStatus.length).toBeLessThanOrEqual(200);
    expect(object.rawStatus).toMatch(/^\{"detail":"xxx.*…$/);
    const long = statusOptionsSchema.parse({ url: "/j", field: "state", completed: ["y".repeat(300)] });
    const reading = mapStatus(long, 200, { state: "y".repeat(300) });
    expect(reading).toMatchObject({ status: "completed" });
    expect(reading.rawStatus.length).toBeLessThanOrEqual(200);
  });
});
