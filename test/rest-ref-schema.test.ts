import { afterEach, describe, expect, it } from "vitest";
import { MockAgent } from "undici";
import type { JsonValue } from "@jobtasks/core";
import { restAdapter } from "@jobtasks/rest";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { recordingClient } from "./support/recording-client.js";
import { expectAnsweredAsUnknown, refsOfEveryKind, sealRef } from "./support/sealed-refs.js";

/**
 * The REST adapter's refSchema, through a real server: a task id whose reference is not one this adapter
 * could have sealed is an unknown task, and the upstream (an undici MockAgent that records every request)
 * hears nothing of it; both shapes the adapter has sealed still open.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const origin = "https://jobs.example.test";

/** An upstream that answers every request, and remembers each as "METHOD path". */
function recordingUpstream() {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const requests: string[] = [];
  agent
    .get(origin)
    .intercept({ path: () => true, method: () => true })
    .reply((request): { statusCode: number; data: object } => {
      requests.push(`${request.method} ${request.path}`);
      if (request.method === "POST" && request.path === "/api/jobs") return { statusCode: 201, data: { id: "j-9" } };
      return { statusCode: 200, data: { state: "running" } };
    })
    .persist();
  return { agent, requests };
}

async function serve() {
  const upstream = recordingUpstream();
  const adapter = restAdapter(
    {
      baseUrl: `${origin}/api`,
      tools: [
        { name: "run", description: "Run a job.", submit: { url: "/jobs" } },
        {
          name: "render",
          description: "Render frames.",
          submit: { url: "/jobs" },
          outputSchema: { type: "object", properties: { frames: { type: "integer" } } },
        },
      ],
      reference: { path: "id" },
      status: { url: "/jobs/{{job.id}}", field: "state", working: ["running"], completed: ["done"] },
      cancel: { url: "/jobs/{{job.id}}/cancel" },
    },
    { dispatcher: upstream.agent },
  );
  const server = cleanup.add(await startInProcessServer({ adapters: [{ name: "jobs", adapter }] }));
  cleanup.add({ close: () => upstream.agent.close() });
  const seal = (ref: JsonValue) => sealRef(server.secret, { instance: "jobs", tool: "run", ref });
  return { requests: upstream.requests, server, seal, client: recordingClient(server.url) };
}

const createdAt = 1_764_547_200_000;
const forged: Record<string, JsonValue> = {
  ...Object.fromEntries(Object.entries(refsOfEveryKind).filter(([kind]) => kind !== "rest")),
  "no createdAt": { id: "j-1" },
  "an empty id": { id: "", createdAt },
  "an id longer than a submit may seal (513 characters)": { id: "x".repeat(513), createdAt },
  "a numeric id": { id: 1, createdAt },
  "createdAt in text": { id: "j-1", createdAt: "2026-12-01T00:00:00Z" },
  "a fractional createdAt": { id: "j-1", createdAt: createdAt + 0.5 },
  "a tool name no config accepts": { id: "j-1", createdAt, tool: "../admin" },
  "an extra member": { id: "j-1", createdAt, url: "https://elsewhere.example.test/jobs/1" },
};

describe("rest refSchema through the server", () => {
  it("answers a task id holding another adapter's reference, or a forged one, as unknown, and sends nothing", async () => {
    const { requests, server, seal } = await serve();
    for (const [label, ref] of Object.entries(forged)) await expectAnsweredAsUnknown(server.url, seal(ref), label);
    expect(requests).toEqual([]);
  });

  it("opens the references a start seals, { id, createdAt } and { id, createdAt, tool }, also when sealed earlier", async () => {
    const { requests, seal, client } = await serve();
    for (const tool of ["run", "render"]) {
      const created = await client.callTool(tool, {});
      expect(created["status"], tool).toBe("working");
      expect((await client.get(created["taskId"] as string))["status"], tool).toBe("working");
    }
    expect(requests.filter((request) => request === "GET /api/jobs/j-9").length).toBeGreaterThanOrEqual(2);

    // The 512 characters a submit may seal, and a tool the config no longer has.
    const longId = "y".repeat(512);
    for (const ref of [
      { id: longId, createdAt: Date.now() },
      { id: "j-2", createdAt: Date.now(), tool: "render" },
      { id: "j-3", createdAt: Date.now(), tool: "retired_tool" },
    ]) {
      expect((await client.get(seal(ref)))["status"], ref.id.slice(0, 8)).toBe("working");
    }
    expect(requests).toEqual(
      expect.arrayContaining([`GET /api/jobs/${longId}`, "GET /api/jobs/j-2", "GET /api/jobs/j-3"]),
    );
  });
});
