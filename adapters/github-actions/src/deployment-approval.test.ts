import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { UpstreamRequestEvent } from "./metered-fetch.js";
import { createTestAdapter, createTestContext, fixture, github, nock, runPath, runRef, workflowRun } from "./test-support/github-fixtures.js";

const attemptPath = `${runPath}/attempts/1`;
const jobsPath = `${attemptPath}/jobs`;
const pendingPath = `${runPath}/pending_deployments`;
/** deploy-<runId>-<attempt>-<environmentId>-<waitingJobId>: 'production', job deploy-canary waiting. */
const productionKey = "deploy-9182736455-1-161088068-25880022002";

/** GitHub shows the attempt waiting, these pending deployments, and these jobs of the attempt. */
function arrangeWaiting(deployments: unknown[], jobs: Record<string, unknown> = fixture("attempt-jobs-waiting.json"), attempt = 1): void {
  github().get(`${runPath}/attempts/${attempt}`).reply(200, workflowRun({ status: "waiting", name: "Deploy", run_attempt: attempt }));
  github().get(pendingPath).reply(200, deployments);
  github().get(`${runPath}/attempts/${attempt}/jobs`).query({ per_page: 100 }).reply(200, jobs);
}

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending, "every arranged GitHub call was made").toEqual([]);
});

describe("a run waiting on deployment protection", () => {
  it("asks for input only for the environments this token may approve, and names who the others wait for", async () => {
    arrangeWaiting(fixture("pending-deployments.json"));
    const requests: UpstreamRequestEvent[] = [];
    const snapshot = await createTestAdapter({}, requests).doGetStatus(runRef, createTestContext());
    // The attempt, its pending deployments and its jobs (which tell sequential waits apart).
    expect(requests.map((request) => request.path.split("?")[0]).sort()).toEqual([attemptPath, jobsPath, pendingPath].sort());
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
    arrangeWaiting(deployments);
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect(snapshot).toMatchObject({ status: "working", message: "waiting: 'production-eu' waits for a review by team eu-ops, @hubot" });
    expect(snapshot.inputRequests).toBeUndefined();
  });

  it("says when a wait timer is what the run waits for", async () => {
    const [deployment] = fixture("pending-deployments.json");
    const startedAt = new Date(Date.now() - 60_000).toISOString();
    const timer = { ...deployment, current_user_can_approve: false, wait_timer: 30, wait_timer_started_at: startedAt, reviewers: [] };
    arrangeWaiting([timer]);
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect(snapshot.status).toBe("working");
    expect(snapshot.message).toMatch(/^waiting: 'production' waits for its wait timer \(30 min, ends \d{4}-/);
  });

  it("gives keys that differ per attempt, so a re-run's approval is a new request", async () => {
    arrangeWaiting(fixture("pending-deployments.json"), fixture("attempt-jobs-waiting.json"), 2);
    const snapshot = await createTestAdapter().doGetStatus({ ...runRef, attempt: 2 }, createTestContext());
    expect(Object.keys(snapshot.inputRequests ?? {})).toEqual(["deploy-9182736455-2-161088068-25880022002"]);
  });

  it("gives a second wait on the same environment in one attempt a new key, and drops the answered one", async () => {
    const production = fixture("pending-deployments.json").slice(0, 1);
    const adapter = createTestAdapter();
    // deploy-canary waits for production and is approved; later deploy-fleet waits for production too.
    arrangeWaiting(production, fixture("attempt-jobs-waiting.json"));
    const firstWait = await adapter.doGetStatus(runRef, createTestContext());
    arrangeWaiting(production, fixture("attempt-jobs-waiting-again.json"));
    const secondWait = await adapter.doGetStatus(runRef, createTestContext());

    expect(Object.keys(firstWait.inputRequests ?? {})).toEqual([productionKey]);
    expect(Object.keys(secondWait.inputRequests ?? {})).toEqual(["deploy-9182736455-1-161088068-25880022003"]);
    expect(secondWait.inputRequests).not.toHaveProperty([productionKey]);
  });

  it("keys every environment of a snapshot by the smallest waiting job id, compared as int64", async () => {
    const { jobs } = fixture("attempt-jobs-waiting.json");
    const waiting = jobs.find((job: { status: string }) => job.status === "waiting");
    // Past 2^53 GitHub ids only survive as strings; as numbers these two would compare the wrong way round.
    const later = { ...waiting, id: "9007199254740993123", name: "deploy-eu" };
    const earlier = { ...waiting, id: "9007199254740993099", name: "deploy-us" };
    const bothEnvironments = fixture("pending-deployments.json").map((deployment: Record<string, unknown>) => ({ ...deployment, current_user_can_approve: true }));
    arrangeWaiting(bothEnvironments, { total_count: 2, jobs: [later, earlier] });
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect(Object.keys(snapshot.inputRequests ?? {}).sort()).toEqual([
      "deploy-9182736455-1-161088068-9007199254740993099",
      "deploy-9182736455-1-161088069-9007199254740993099",
    ]);
  });

  it("falls back to a key without job id while GitHub does not show the waiting job yet", async () => {
    const { jobs } = fixture("attempt-jobs-waiting.json");
    const notYetWaiting = jobs.map((job: Record<string, unknown>) => (job.status === "waiting" ? { ...job, status: "queued" } : job));
    arrangeWaiting(fixture("pending-deployments.json"), { total_count: notYetWaiting.length, jobs: notYetWaiting });
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect(snapshot.status).toBe("input_required");
    expect(Object.keys(snapshot.inputRequests ?? {})).toEqual(["deploy-9182736455-1-161088068"]);
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

  it("approves the second wait on an environment through its own key", async () => {
    let body: any;
    github()
      .post(pendingPath, (sent) => ((body = sent), true))
      .reply(200, []);
    await createTestAdapter().doRespond!(
      runRef,
      { "deploy-9182736455-1-161088068-25880022003": { action: "accept", content: { approve: true } } },
      createTestContext(),
    );
    expect(body).toEqual({ environment_ids: [161088068], state: "approved", comment: "Approved through jobtasks" });
  });

  it("approves through a fallback key without job id as well", async () => {
    let body: any;
    github()
      .post(pendingPath, (sent) => ((body = sent), true))
      .reply(200, []);
    await createTestAdapter().doRespond!(runRef, { "deploy-9182736455-1-161088068": { action: "accept", content: { approve: true } } }, createTestContext());
    expect(body).toEqual({ environment_ids: [161088068], state: "approved", comment: "Approved through jobtasks" });
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
        "deploy-9182736455-2-161088068-25880022002": { action: "accept", content: { approve: true } },
        "deploy-9182736455-1-161088068-": { action: "accept", content: { approve: true } },
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
    github().get(jobsPath).query(true).reply(200, { total_count: 0, jobs: [] });
    github().get(`${runPath}/artifacts`).query(true).reply(200, { total_count: 0, artifacts: [] });
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect(snapshot).toMatchObject({ status: "completed", result: { isError: true } });
  });
});
