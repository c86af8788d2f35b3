import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunningDemoApi } from "@jobtasks/demo";
import { createDemoAdapter, startDemoApiForTests } from "./support/demo-stack.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { pollUntil, rawError, rawResult } from "./support/raw-rpc.js";

/**
 * The demo's approval form starts from approve: false. That default is where a form's UI starts, not an
 * answer: an accept that leaves approve out is refused naming the field, and nothing reaches the pipeline,
 * which still asks (before, the default was filled in and the deploy was rejected).
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

let api: RunningDemoApi;
beforeAll(async () => {
  api = await startDemoApiForTests();
});
afterAll(async () => {
  await api?.close();
});

describe.each(["demo", "rest"] as const)(
  "an accept without the required approve field, through the %s adapter",
  (kind) => {
    it("tasks/update: -32602 naming inputResponses.<key>.content.approve; the pipeline still asks", async () => {
      const server = cleanup.add(
        await startInProcessServer({
          adapters: [{ name: "demo", adapter: createDemoAdapter(kind, api.url) }],
          service: { snapshotCacheMs: 0 },
        }),
      );
      const created = await rawResult(server.url, "tools/call", {
        name: "demo_pipeline",
        arguments: { steps: 2, stepMs: 100, approval: true },
      });
      const taskId = created["taskId"] as string;
      const asked = await pollUntil(
        () => rawResult(server.url, "tasks/get", { taskId }),
        (task) => task["status"] === "input_required",
      );
      const [key] = Object.keys(asked["inputRequests"]);
      expect(asked["inputRequests"][key!].params.requestedSchema.properties.approve.default).toBe(false);

      for (const answer of [
        { action: "accept", content: {} },
        { action: "accept" },
        { action: "accept", content: { comment: "looks fine" } },
      ]) {
        const error = await rawError(server.url, "tasks/update", { taskId, inputResponses: { [key!]: answer } });
        expect(error.code, JSON.stringify(answer)).toBe(-32602);
        expect(error.message).toContain(`inputResponses.${key}.content.approve`);
      }
      const still = await rawResult(server.url, "tasks/get", { taskId });
      expect(still["status"]).toBe("input_required");
      expect(Object.keys(still["inputRequests"])).toEqual([key]);

      // The same question still takes a real answer.
      await rawResult(server.url, "tasks/update", {
        taskId,
        inputResponses: { [key!]: { action: "accept", content: { approve: true } } },
      });
      const finished = await pollUntil(
        () => rawResult(server.url, "tasks/get", { taskId }),
        (task) => task["status"] === "completed",
      );
      expect(finished["result"]["structuredContent"]["status"]).toBe("succeeded");
    });

    it("task_answer: a tool error naming content.approve, nothing sent; the pipeline still asks", async () => {
      const server = cleanup.add(
        await startInProcessServer({
          adapters: [{ name: "demo", adapter: createDemoAdapter(kind, api.url) }],
          service: { snapshotCacheMs: 0 },
        }),
      );
      const plain = { tasks: false };
      const handle = await rawResult(
        server.url,
        "tools/call",
        { name: "demo_pipeline", arguments: { steps: 2, stepMs: 100, approval: true } },
        plain,
      );
      const taskId = handle["structuredContent"]["taskId"] as string;
      const asked = await pollUntil(
        () =>
          rawResult(server.url, "tools/call", { name: "task_status", arguments: { taskId, waitSeconds: 0 } }, plain),
        (result) => result["structuredContent"]["status"] === "input_required",
      );
      const [key] = Object.keys(asked["structuredContent"]["inputRequests"]);
      for (const answer of [{ action: "accept", content: {} }, { action: "accept" }]) {
        const refused = await rawResult(
          server.url,
          "tools/call",
          { name: "task_answer", arguments: { taskId, key, ...answer } },
          plain,
        );
        expect(refused["isError"]).toBe(true);
        expect(refused["content"][0].text).toMatch(/content\.approve: required.*Nothing was sent/);
      }
      const still = await rawResult(
        server.url,
        "tools/call",
        { name: "task_status", arguments: { taskId, waitSeconds: 0 } },
        plain,
      );
      expect(still["structuredContent"]["status"]).toBe("input_required");
    });
  },
);
