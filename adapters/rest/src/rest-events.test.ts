import { createHmac } from "node:crypto";
import type { EventDeliveryV1, JobEventsV1 } from "@jobtasks/core";
import { describe, expect, it } from "vitest";
import { restAdapter } from "./rest-adapter.js";
import type { RestJobRef } from "./rest-job-ref.js";
import type { RestOptions } from "./rest-options.js";
import { renderFarmConfig, renderFarmOrigin } from "./test-support/render-farm-config.js";

/**
 * Reading a verified callback: the job it names (as a task's ref holds it), a snapshot when the payload's
 * status is enough, "changed" otherwise, and the delivery's id. A payload that names no job is unreadable.
 */

const secret = "render-farm-callback-secret-0123";
const environment = { RENDER_TOKEN: "rf-token-0123456789abcdef", RENDER_CALLBACK_SECRET: secret };
const receivedAt = Date.parse("2026-12-01T12:00:00Z");

function eventsOf(events: Partial<NonNullable<RestOptions["events"]>>, overrides: Partial<RestOptions> = {}) {
  const adapter = restAdapter(
    renderFarmConfig({
      events: {
        jobIdPath: "$.render.id",
        verification: { scheme: "hmac-sha256", header: "X-Signature", secretEnv: "RENDER_CALLBACK_SECRET" },
        ...events,
      },
      ...overrides,
    }),
    { environment },
  );
  return adapter.events as JobEventsV1<RestJobRef>;
}

function delivery(payload: unknown, headers: Record<string, string> = {}): EventDeliveryV1 {
  const text = typeof payload === "string" ? payload : JSON.stringify(payload);
  const signature = createHmac("sha256", secret).update(text).digest("hex");
  return { headers: { "x-signature": signature, ...headers }, body: new TextEncoder().encode(text), receivedAt };
}

describe("rest callbacks: reading a delivery", () => {
  it("names the job by the id at jobIdPath and, without statusPath, says it changed", async () => {
    const events = eventsOf({});
    const read = await events.doReadDelivery(delivery({ render: { id: "r-42", state: "done" } }));
    expect(read).toEqual({ event: "callback", jobs: [{ ref: { id: "r-42", createdAt: receivedAt } }] });
  });

  it("reads a number id as the submit does, as text", async () => {
    const read = await eventsOf({}).doReadDelivery(delivery({ render: { id: 42 } }));
    expect(read.jobs.map((job) => job.ref.id)).toEqual(["42"]);
  });

  it("gives the snapshot of a running, cancelled or failed job from the status lists, messages over the payload", async () => {
    const events = eventsOf({ statusPath: "render.state", updatedAtPath: "render.updated" });
    const running = await events.doReadDelivery(
      delivery({
        render: { id: "r-42", state: "Rendering", updated: "2026-12-01T11:59:58Z" },
        progress: { frame: 3, total: 10 },
      }),
    );
    expect(running.action).toBe("Rendering");
    expect(running.jobs).toEqual([
      {
        ref: { id: "r-42", createdAt: receivedAt },
        snapshot: {
          status: "working",
          rawStatus: "Rendering",
          message: "frame 3/10",
          updatedAt: "2026-12-01T11:59:58.000Z",
          pollIntervalMs: 1_000,
        },
      },
    ]);
    const cancelled = await events.doReadDelivery(delivery({ render: { id: "r-42", state: "aborted" } }));
    expect(cancelled.jobs[0]?.snapshot).toEqual({ status: "cancelled", rawStatus: "aborted", message: "aborted" });
    const failed = await eventsOf(
      { statusPath: "render.state" },
      { status: { ...renderFarmConfig().status!, failed: ["purged"] } },
    ).doReadDelivery(delivery({ render: { id: "r-42", state: "purged" } }));
    expect(failed.jobs[0]?.snapshot).toMatchObject({ status: "failed", error: { code: -32603 } });
    // A value in no list maps as a status read maps it: the configured non-terminal default.
    const novel = await events.doReadDelivery(delivery({ render: { id: "r-42", state: "warming_up" } }));
    expect(novel.jobs[0]?.snapshot).toMatchObject({ status: "working", rawStatus: "warming_up" });
  });

  it("reads a completed or waiting job again (its result or question is not in the callback), with the change's time", async () => {
    const events = eventsOf({ statusPath: "render.state", updatedAtPath: "render.updated" });
    for (const state of ["done", "crashed", "needs_review"]) {
      const read = await events.doReadDelivery(
        delivery({ render: { id: "r-42", state, updated: "2026-12-01T11:59:59Z" }, output: { frames: 10 } }),
      );
      expect(read.jobs).toEqual([
        { ref: { id: "r-42", createdAt: receivedAt }, updatedAt: "2026-12-01T11:59:59.000Z" },
      ]);
    }
  });

  it("says only that the job changed when the payload has no status at statusPath", async () => {
    const read = await eventsOf({ statusPath: "render.state" }).doReadDelivery(delivery({ render: { id: "r-42" } }));
    expect(read.jobs).toEqual([{ ref: { id: "r-42", createdAt: receivedAt } }]);
  });

  it("finds a delivery unreadable when the id is missing, not a string or number, or the body is not JSON, without quoting the body", async () => {
    const events = eventsOf({});
    await expect(events.doReadDelivery(delivery({ render: { state: "done" } }))).rejects.toThrow(
      "the payload has no job id at $.render.id",
    );
    await expect(events.doReadDelivery(delivery({ render: { id: { nested: true } } }))).rejects.toThrow(/no job id/);
    await expect(events.doReadDelivery(delivery({ render: { id: "" } }))).rejects.toThrow(/no job id/);
    const notJson = events.doReadDelivery(delivery("render-secret-words are not JSON"));
    await expect(notJson).rejects.toThrow("the payload is not JSON");
    await expect(events.doReadDelivery(delivery(""))).rejects.toThrow("the payload is empty");
    await expect(events.doReadDelivery(delivery("[".repeat(300) + "]".repeat(300)))).rejects.toThrow(/nests more than/);
  });

  it("reads a status URL as the submit reads a URL reference: its short form, and none for a foreign origin", async () => {
    const events = eventsOf(
      { jobIdPath: "monitor" },
      { reference: { header: ["Operation-Location"] }, status: { ...renderFarmConfig().status!, url: undefined } },
    );
    const read = await events.doReadDelivery(delivery({ monitor: `${renderFarmOrigin}/api/renders/r-42?v=2` }));
    expect(read.jobs.map((job) => job.ref.id)).toEqual(["/api/renders/r-42?v=2"]);
    const foreign = await events.doReadDelivery(delivery({ monitor: "https://elsewhere.example.test/renders/r-42" }));
    expect(foreign.jobs).toEqual([]);
  });

  it("gives the delivery id from the named header or payload path, once verified", async () => {
    const byHeader = eventsOf({ deliveryIdHeader: "X-Delivery-Id" });
    expect(await byHeader.doVerifyDelivery(delivery({ render: { id: "r-1" } }, { "x-delivery-id": "d-7" }))).toEqual({
      verified: true,
      deliveryId: "d-7",
    });
    expect(await byHeader.doVerifyDelivery(delivery({ render: { id: "r-1" } }))).toEqual({ verified: true });
    const byPath = eventsOf({ deliveryIdPath: "$.delivery" });
    expect(await byPath.doVerifyDelivery(delivery({ delivery: 9001, render: { id: "r-1" } }))).toEqual({
      verified: true,
      deliveryId: "9001",
    });
    expect(await byPath.doVerifyDelivery(delivery("not json"))).toEqual({ verified: true });
    // A refused delivery gives no id, whatever it claims.
    const forged = {
      ...delivery({ render: { id: "r-1" } }, { "x-delivery-id": "d-8" }),
      headers: { "x-delivery-id": "d-8", "x-signature": "0".repeat(64) },
    };
    expect(await byHeader.doVerifyDelivery(forged)).toEqual({
      verified: false,
      reason: "X-Signature does not match the secret",
    });
  });
});

describe("rest callbacks: the job's identity", () => {
  it("is the job id alone: tasks that started one job at different times share it", () => {
    const events = eventsOf({});
    expect(events.jobIdentity?.({ id: "r-42", createdAt: 1 })).toEqual({ id: "r-42" });
    expect(events.jobIdentity?.({ id: "r-42", createdAt: 2 })).toEqual(
      events.jobIdentity?.({ id: "r-42", createdAt: 1 }),
    );
  });

  it("keeps apart the tasks whose results are held to different outputSchemas, and names the job once for each", async () => {
    const outputSchema = { type: "object", properties: { frames: { type: "integer" } }, required: ["frames"] };
    const base = renderFarmConfig().tools![0]!;
    const tools = [
      { ...base, name: "render_scene", outputSchema },
      { ...base, name: "render_preview", outputSchema },
      { ...base, name: "render_raw" },
    ];
    const events = eventsOf({}, { tools });
    const identity = (ref: RestJobRef) => events.jobIdentity?.(ref);
    expect(identity({ id: "r-42", createdAt: 1, tool: "render_scene" })).toEqual({ id: "r-42", tool: "render_scene" });
    expect(identity({ id: "r-42", createdAt: 1, tool: "render_preview" })).toEqual({
      id: "r-42",
      tool: "render_preview",
    });
    // No schema (a tool without one, an id sealed before tools had one, a tool the config no longer has).
    expect(identity({ id: "r-42", createdAt: 1 })).toEqual({ id: "r-42" });
    expect(identity({ id: "r-42", createdAt: 1, tool: "render_gone" })).toEqual({ id: "r-42" });
    const read = await events.doReadDelivery(delivery({ render: { id: "r-42" } }));
    expect(read.jobs.map((job) => identity(job.ref))).toEqual([
      { id: "r-42" },
      { id: "r-42", tool: "render_scene" },
      { id: "r-42", tool: "render_preview" },
    ]);
  });

  it("is one for the only tool's tasks, with or without its name in the ref", async () => {
    const outputSchema = { type: "object", properties: { frames: { type: "integer" } } };
    const events = eventsOf({}, { tools: [{ ...renderFarmConfig().tools![0]!, outputSchema }] });
    expect(events.jobIdentity?.({ id: "r-42", createdAt: 1 })).toEqual({ id: "r-42", tool: "render_scene" });
    const read = await events.doReadDelivery(delivery({ render: { id: "r-42" } }));
    expect(read.jobs).toHaveLength(1);
  });
});
