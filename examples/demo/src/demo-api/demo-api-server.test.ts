import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoApi, type RunningDemoApi } from "./demo-api-server.js";
import { call, createJob, waitForStatus } from "../test-support/demo-api-client-for-tests.js";

let api: RunningDemoApi;

beforeAll(async () => {
  api = await startDemoApi({ port: 0, queueDelayMs: 20, cancelDelayMs: 30 });
});
afterAll(async () => {
  await api.close();
});

describe("demo API: start-up", () => {
  it("says a taken port is taken, naming how to choose another", async () => {
    await expect(startDemoApi({ port: api.port })).rejects.toThrow(
      `127.0.0.1:${api.port} is already in use; choose another port (DEMO_API_PORT or --api-port)`,
    );
  });
});

describe("demo API: basics", () => {
  it("answers the health check", async () => {
    const answer = await call(api.url, "GET", "/healthz");
    expect(answer).toMatchObject({ status: 200, body: { ok: true } });
  });

  it("listens on loopback with the port it reports", () => {
    expect(api.port).toBeGreaterThan(0);
    expect(api.url).toBe(`http://127.0.0.1:${api.port}`);
  });

  it("creates a queued job with defaults", async () => {
    const answer = await call(api.url, "POST", "/jobs", {});
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      status: "queued",
      name: "demo-pipeline",
      totalSteps: 3,
      currentStep: 0,
      approval: null,
      steps: [
        { number: 1, name: "checkout", status: "pending" },
        { number: 2, name: "install", status: "pending" },
        { number: 3, name: "test", status: "pending" },
      ],
    });
    expect(answer.body.id).toMatch(/^job_[A-Za-z0-9_-]{8,}$/);
    expect(Date.parse(answer.body.createdAt)).not.toBeNaN();
    expect(answer.body.finishedAt).toBeUndefined();
  });

  it("accepts a POST without a body", async () => {
    const response = await fetch(`${api.url}/jobs`, { method: "POST" });
    expect(response.status).toBe(201);
  });

  it("names steps after a CI pipeline and numbers repeated rounds", async () => {
    const record = await createJob(api.url, { steps: 10, stepMs: 600_000, name: "long" });
    expect(record.steps.map((step) => step.name)).toEqual([
      "checkout",
      "install",
      "test",
      "build",
      "package",
      "deploy",
      "smoke-test",
      "notify",
      "checkout #2",
      "install #2",
    ]);
  });
});

describe("demo API: lifecycle", () => {
  it("runs every step and succeeds", async () => {
    const created = await createJob(api.url, { steps: 4, stepMs: 5 });
    const done = await waitForStatus(api.url, created.id, "succeeded");
    expect(done.currentStep).toBe(4);
    expect(done.steps.every((step) => step.status === "succeeded")).toBe(true);
    expect(Date.parse(done.finishedAt ?? "")).not.toBeNaN();
    expect(done.durationMs).toBeGreaterThanOrEqual(0);
    expect(done.logs).toContain("test: succeeded");
  });

  it("reports the running step while it runs", async () => {
    const created = await createJob(api.url, { steps: 2, stepMs: 600_000 });
    const running = await waitForStatus(api.url, created.id, "running");
    expect(running.currentStep).toBe(1);
    expect(running.steps[0]?.status).toBe("running");
    expect(running.steps[1]?.status).toBe("pending");
  });

  it("fails on the last step with a log that explains why", async () => {
    const created = await createJob(api.url, { steps: 3, stepMs: 5, fail: true });
    const done = await waitForStatus(api.url, created.id, "failed");
    expect(done.steps.map((step) => step.status)).toEqual(["succeeded", "succeeded", "failed"]);
    expect(done.logs.join("\n")).toContain("AssertionError: expected 90 to be 85");
    expect(done.logs.join("\n")).toContain('step "test" exited with code 1');
    expect(done.finishedAt).toBeDefined();
  });

  it("keeps a finished job unchanged when read again", async () => {
    const created = await createJob(api.url, { steps: 1, stepMs: 0 });
    const first = await waitForStatus(api.url, created.id, "succeeded");
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await call(api.url, "GET", `/jobs/${created.id}`);
    expect(second.body).toEqual(first);
  });
});

describe("demo API: approval", () => {
  it("waits for approval after the first step, then continues once approved", async () => {
    const created = await createJob(api.url, { steps: 3, stepMs: 5, approval: true, name: "shop" });
    const waiting = await waitForStatus(api.url, created.id, "waiting_for_approval");
    expect(waiting.currentStep).toBe(1);
    expect(waiting.steps.map((step) => step.status)).toEqual(["succeeded", "pending", "pending"]);
    expect(waiting.approval).toMatchObject({ state: "pending", message: "Deploy shop to production?" });
    expect(waiting.approval?.id).toMatch(/^appr_[A-Za-z0-9_-]{8,}$/);

    const approved = await call(api.url, "POST", `/jobs/${created.id}/approval`, {
      approvalId: waiting.approval?.id,
      approve: true,
      comment: "ship it",
    });
    expect(approved.status).toBe(200);
    expect(approved.body.approval).toMatchObject({ state: "approved", comment: "ship it" });
    const done = await waitForStatus(api.url, created.id, "succeeded");
    expect(done.steps.every((step) => step.status === "succeeded")).toBe(true);
    expect(done.approval?.id).toBe(waiting.approval?.id);
  });

  it("ends rejected when the approval is rejected, skipping the remaining steps", async () => {
    const created = await createJob(api.url, { steps: 3, stepMs: 5, approval: true });
    const waiting = await waitForStatus(api.url, created.id, "waiting_for_approval");
    const answer = await call(api.url, "POST", `/jobs/${created.id}/approval`, {
      approvalId: waiting.approval?.id,
      approve: false,
      comment: "not on a Friday",
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      status: "rejected",
      approval: { state: "rejected", comment: "not on a Friday" },
    });
    expect(answer.body.steps.map((step: { status: string }) => step.status)).toEqual([
      "succeeded",
      "skipped",
      "skipped",
    ]);
    expect(answer.body.finishedAt).toBeDefined();
  });

  it("answers 409 for a second answer, a wrong approval id, or a job that is not waiting", async () => {
    const created = await createJob(api.url, { steps: 2, stepMs: 5, approval: true });
    const waiting = await waitForStatus(api.url, created.id, "waiting_for_approval");
    const wrongId = await call(api.url, "POST", `/jobs/${created.id}/approval`, {
      approvalId: "appr_other",
      approve: true,
    });
    expect(wrongId.status).toBe(409);
    expect(wrongId.body).toMatchObject({ error: "conflict" });
    expect(wrongId.body.message).toContain("appr_other");

    const first = await call(api.url, "POST", `/jobs/${created.id}/approval`, {
      approvalId: waiting.approval?.id,
      approve: true,
    });
    expect(first.status).toBe(200);
    const second = await call(api.url, "POST", `/jobs/${created.id}/approval`, {
      approvalId: waiting.approval?.id,
      approve: false,
    });
    expect(second.status).toBe(409);

    const plain = await createJob(api.url, { steps: 1, stepMs: 600_000 });
    const notWaiting = await call(api.url, "POST", `/jobs/${plain.id}/approval`, {
      approvalId: "appr_x",
      approve: true,
    });
    expect(notWaiting.status).toBe(409);
    expect(notWaiting.body.message).toContain("not waiting for approval");
  });

  it("validates the approval body", async () => {
    const created = await createJob(api.url, { steps: 1, stepMs: 600_000 });
    const answer = await call(api.url, "POST", `/jobs/${created.id}/approval`, { approvalId: "appr_x" });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: "invalid_request" });
    expect(answer.body.message).toMatch(/^approve: /);
  });
});

describe("demo API: cancellation", () => {
  it("accepts the cancel with 202, and the job ends cancelled a moment later", async () => {
    const created = await createJob(api.url, { steps: 3, stepMs: 600_000 });
    await waitForStatus(api.url, created.id, "running");
    const accepted = await call(api.url, "POST", `/jobs/${created.id}/cancel`);
    expect(accepted.status).toBe(202);
    // Asynchronous, like real CI: the answer still shows the job running.
    expect(accepted.body.status).toBe("running");
    const again = await call(api.url, "POST", `/jobs/${created.id}/cancel`);
    expect(again.status).toBe(202);

    const cancelled = await waitForStatus(api.url, created.id, "cancelled");
    expect(cancelled.steps.map((step) => step.status)).toEqual(["cancelled", "skipped", "skipped"]);
    expect(cancelled.finishedAt).toBeDefined();

    const afterwards = await call(api.url, "POST", `/jobs/${created.id}/cancel`);
    expect(afterwards.status).toBe(409);
    expect(afterwards.body).toMatchObject({ error: "conflict" });
  });

  it("cancels a job that waits for approval", async () => {
    const created = await createJob(api.url, { steps: 2, stepMs: 5, approval: true });
    await waitForStatus(api.url, created.id, "waiting_for_approval");
    expect((await call(api.url, "POST", `/jobs/${created.id}/cancel`)).status).toBe(202);
    const cancelled = await waitForStatus(api.url, created.id, "cancelled");
    expect(cancelled.steps.map((step) => step.status)).toEqual(["succeeded", "skipped"]);
  });

  it("refuses to cancel a finished job", async () => {
    const created = await createJob(api.url, { steps: 1, stepMs: 0 });
    await waitForStatus(api.url, created.id, "succeeded");
    expect((await call(api.url, "POST", `/jobs/${created.id}/cancel`)).status).toBe(409);
  });
});

describe("demo API: errors", () => {
  it("answers 404 for unknown jobs on every job route", async () => {
    for (const [method, path] of [
      ["GET", "/jobs/job_unknown"],
      ["POST", "/jobs/job_unknown/cancel"],
      ["POST", "/jobs/job_unknown/approval"],
      ["GET", "/nowhere"],
    ] as const) {
      const body = path.endsWith("/approval") ? { approvalId: "appr_x", approve: true } : undefined;
      const answer = await call(api.url, method, path, body);
      expect({ path, status: answer.status, body: answer.body }).toEqual({
        path,
        status: 404,
        body: { error: "not_found" },
      });
    }
  });

  it.each([
    [{ steps: 0 }, "steps: "],
    [{ steps: 51 }, "steps: "],
    [{ steps: 2.5 }, "steps: "],
    [{ stepMs: -1 }, "stepMs: "],
    [{ stepMs: 600_001 }, "stepMs: "],
    [{ approval: "yes" }, "approval: "],
    [{ fail: 1 }, "fail: "],
    [{ name: "" }, "name: "],
    [[1, 2], "body: "],
  ])("refuses the body %j with 400 naming the field", async (body, prefix) => {
    const answer = await call(api.url, "POST", "/jobs", body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("invalid_request");
    expect(answer.body.message.startsWith(prefix)).toBe(true);
  });

  it("refuses a body that is not JSON", async () => {
    const answer = await call(api.url, "POST", "/jobs", "{not json");
    expect(answer).toMatchObject({ status: 400, body: { error: "invalid_request", message: "body: not valid JSON" } });
  });

  it("answers 405 for a wrong method", async () => {
    expect((await call(api.url, "GET", "/jobs")).status).toBe(405);
    expect((await call(api.url, "DELETE", "/jobs/job_abc")).status).toBe(405);
  });
});

describe("demo API: fault injection and retention", () => {
  it("answers the injected status to the next requests on /jobs, with Retry-After", async () => {
    const created = await createJob(api.url, { steps: 1, stepMs: 600_000 });
    const injected = await call(api.url, "POST", "/_faults", { status: 503, count: 2 });
    expect(injected).toMatchObject({ status: 200, body: { ok: true, status: 503, count: 2 } });

    // The health check is not a /jobs route: it stays healthy and does not use up a fault.
    expect((await call(api.url, "GET", "/healthz")).status).toBe(200);
    const first = await call(api.url, "GET", `/jobs/${created.id}`);
    const second = await call(api.url, "POST", "/jobs", {});
    const third = await call(api.url, "GET", `/jobs/${created.id}`);
    expect([first.status, second.status, third.status]).toEqual([503, 503, 200]);
    expect(first.headers.get("retry-after")).toBe("1");
    expect(first.body.error).toBe("injected_fault");
  });

  it("injects other statuses with the Retry-After asked for", async () => {
    await call(api.url, "POST", "/_faults", { status: 429, count: 1, retryAfterSeconds: 7 });
    const answer = await call(api.url, "GET", "/jobs/job_any");
    expect(answer.status).toBe(429);
    expect(answer.headers.get("retry-after")).toBe("7");
  });

  it("validates fault requests", async () => {
    const answer = await call(api.url, "POST", "/_faults", { status: 200 });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/^status: /);
  });

  it("forgets finished jobs after the retention time", async () => {
    const shortLived = await startDemoApi({ port: 0, retentionMs: 30 });
    try {
      const created = await createJob(shortLived.url, { steps: 1, stepMs: 0 });
      await waitForStatus(shortLived.url, created.id, "succeeded");
      // Bounded polling: a loaded machine may be slow to run the 30 ms expiry, never too quick.
      const deadline = Date.now() + 10_000;
      let status = 200;
      while (status === 200 && Date.now() < deadline) {
        status = (await call(shortLived.url, "GET", `/jobs/${created.id}`)).status;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(status).toBe(404);
    } finally {
      await shortLived.close();
    }
  });

  it("stops answering after close()", async () => {
    const closing = await startDemoApi({ port: 0 });
    await createJob(closing.url, { steps: 5, stepMs: 600_000 });
    await closing.close();
    await expect(fetch(`${closing.url}/healthz`)).rejects.toThrow();
  });
});
