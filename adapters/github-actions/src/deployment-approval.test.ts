import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestAdapter, createTestContext, fixture, github, nock, runPath, runRef, workflowRun } from "./test-support/github-fixtures.js";

const attemptPath = `${runPath}/attempts/1`;
const pendingPath = `${runPath}/pending_deployments`;
const productionKey = "deploy-9182736455-1-161088068";

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending, "every arranged GitHub call was made").toEqual([]);
});

describe("a run waiting on deployment protection", () => {
  it("asks for input only for the environments this token may approve, and names who the others wait for", async () => {
    github().get(attemptPath).reply(200, workflowRun({ status: "waiting", name: "Deploy" }));
    github().get(pendingPath).reply(200, fixture("pending-deployments.json"));
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect(snapshot.status).toBe("input_required");
    expect(snapshot.rawStatus).toBe("waiting");
    expect(Object.keys(snapshot.inputRequests ?? {})).toEqual([productionKey]);
    const request = snapshot.inputRequests![productionKey]!;
    expect(request.method).toBe("elicitation/create");
    expect(request.params.message).toContain("waits for approval to deploy to 'production'");
    expect(request.params.requestedSchema.properties).toHaveProperty("approve.type", "boolean");
    expect(request.params.requestedSchema.properties).toHaveProperty("comment.type", "string");
    expect(snapshot.message).toBe(
      "waiting: 'production' waits for your approval; 'production-eu' waits for a review by team eu-ops, @hubot",
    );
  });

  it("stays working, saying who it waits for, when this token cannot approve", async () => {
    const deployments = fixture("pending-deployments.json").slice(1);
    github().get(attemptPath).reply(200, workflowRun({ status: "waiting" }));
    github().get(pendingPath).reply(200, deployments);
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect(snapshot).toMatchObject({ status: "working", message: "waiting: 'production-eu' waits for a review by team eu-ops, @hubot" });
    expect(snapshot.inputRequests).toBeUndefined();
  });

  it("says when a wait timer is what the run waits for", async () => {
    const [deployment] = fixture("pending-deployments.json");
    const startedAt = new Date(Date.now() - 60_000).toISOString();
    const timer = { ...deployment, current_user_can_approve: false, wait_timer: 30, wait_timer_started_at: startedAt, reviewers: [] };
    github().get(attemptPath).reply(200, workflowRun({ status: "waiting" }));
    github().get(pendingPath).reply(200, [timer]);
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect(snapshot.status).toBe("working");
    expect(snapshot.message).toMatch(/^waiting: 'production' waits for its wait timer \(30 min, ends \d{4}-/);
  });

  it("gives keys that differ per attempt, so a re-run's approval is a new request", async () => {
    github().get(`${runPath}/attempts/2`).reply(200, workflowRun({ status: "waiting", run_attempt: 2 }));
    github().get(pendingPath).reply(200, fixture("pending-deployments.json"));
    const snapshot = await createTestAdapter().doGetStatus({ ...runRef, attempt: 2 }, createTestContext());
    expect(Object.keys(snapshot.inputRequests ?? {})).toEqual(["deploy-9182736455-2-161088068"]);
  });
});

describe("answering an approval (doRespond)", () => {
  it("approves through the pending_deployments API with the agent's comment", async () => {
    let body: any;
    github()
      .post(pendingPath, (sent) => ((body = sent), true))
      .reply(200, []);
    await createTestAdapter().doRespond!(
      runRef,
      { [productionKey]: { action: "accept", content: { approve: true, comment: "Smoke tests passed on staging" } } },
      createTestContext(),
    );
    expect(body).toEqual({ environment_ids: [161088068], state: "approved", comment: "Smoke tests passed on staging" });
  });

  it.each([
    ["accept with approve false", { action: "accept" as const, content: { approve: false } }],
    ["decline", { action: "decline" as const }],
  ])("rejects on %s", async (_label, response) => {
    let body: any;
    github()
      .post(pendingPath, (sent) => ((body = sent), true))
      .reply(200, []);
    await createTestAdapter().doRespond!(runRef, { [productionKey]: response }, createTestContext());
    expect(body).toEqual({ environment_ids: [161088068], state: "rejected", comment: "Rejected through jobtasks" });
  });

  it("leaves the deployment waiting when the form was dismissed (cancel), or the key is not this attempt's", async () => {
    await createTestAdapter().doRespond!(
      runRef,
      {
        [productionKey]: { action: "cancel" },
        "deploy-9182736455-2-161088068": { action: "accept", content: { approve: true } },
        "something-else": { action: "accept", content: { approve: true } },
      },
      createTestContext(),
    );
    // No interceptor is arranged: any call would fail with nock's "no match" error.
  });

  it("treats a deployment someone else already reviewed (422) as answered", async () => {
    github().post(pendingPath).reply(422, { message: "No pending deployment requests to approve or reject" });
    await expect(
      createTestAdapter().doRespond!(runRef, { [productionKey]: { action: "accept", content: { approve: true } } }, createTestContext()),
    ).resolves.toBeUndefined();
  });

  it("reports a rejected deployment, once GitHub concludes the run, as completed with isError", async () => {
    github().get(attemptPath).reply(200, workflowRun({ status: "completed", conclusion: "failure" }));
    github().get(`${attemptPath}/jobs`).query(true).reply(200, { total_count: 0, jobs: [] });
    github().get(`${runPath}/artifacts`).query(true).reply(200, { total_count: 0, artifacts: [] });
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect(snapshot).toMatchObject({ status: "completed", result: { isError: true } });
  });
});
