import { InvalidToolInputError } from "@jobtasks/core";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { UpstreamRequestEvent } from "./create-github-client.js";
import {
  createTestAdapter,
  createTestContext,
  fixture,
  github,
  nock,
  runPath,
  runRef,
  workflowRun,
} from "./test-support/github-fixtures.js";

const attemptPath = `${runPath}/attempts/1`;
const pendingPath = `${runPath}/pending_deployments`;
const approvalsPath = `${runPath}/approvals`;
/** deploy-<runId>-<attempt>-<environmentId>-<reviewsSoFar>: 'production', never reviewed in this run yet. */
const productionKey = "deploy-9182736455-1-161088068-0";
const productionEuKey = "deploy-9182736455-1-161088069-0";

/** A past review in GitHub's review history of the run, for these environments. */
function review(state: string, ...environments: Array<{ id: number; name: string }>): Record<string, unknown> {
  return { ...fixture("run-approvals.json")[0], state, environments };
}
const production = { id: 161088068, name: "production" };
const productionEu = { id: 161088069, name: "production-eu" };

/** GitHub shows the attempt waiting, these pending deployments, and this review history of the run (null: not read). */
function arrangeWaiting(
  deployments: unknown[],
  reviews: unknown[] | null = fixture("run-approvals.json"),
  attempt = 1,
): void {
  github()
    .get(`${runPath}/attempts/${attempt}`)
    .reply(200, workflowRun({ status: "waiting", name: "Deploy", run_attempt: attempt }));
  github().get(pendingPath).reply(200, deployments);
  if (reviews !== null) github().get(approvalsPath).reply(200, reviews);
}

/** Both environments of the fixture, approvable by this token. */
function bothApprovable(): unknown[] {
  return fixture("pending-deployments.json").map((deployment: Record<string, unknown>) => ({
    ...deployment,
    current_user_can_approve: true,
  }));
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
    // The attempt, its pending deployments and the run's review history (which numbers the keys).
    expect(requests.map((request) => request.path.split("?")[0])).toEqual([attemptPath, pendingPath, approvalsPath]);
    expect(snapshot.status).toBe("input_required");
    expect(snapshot.rawStatus).toBe("waiting");
    expect(Object.keys(snapshot.inputRequests ?? {})).toEqual([productionKey]);
    const request = snapshot.inputRequests![productionKey]!;
    expect(request.method).toBe("elicitation/create");
    expect(request.params.message).toContain("waits for approval to deploy to 'production'");
    // Where a person reviews it when the caller may not approve (the server's refusal quotes the page).
    expect(request.params.message).toContain(
      `Review it on GitHub: ${workflowRun({ status: "waiting" })["html_url"] as string}`,
    );
    // The question is an approval: only a caller with the approval scope may answer it.
    expect(snapshot.approvalKeys).toEqual([productionKey]);
    expect(request.params.requestedSchema.properties).toHaveProperty("approve.type", "boolean");
    expect(request.params.requestedSchema.properties).toHaveProperty("comment.type", "string");
    expect(snapshot.message).toBe(
      "waiting: 'production' waits for your approval; 'production-eu' waits for a review by team eu-ops, @hubot",
    );
  });

  it("offers no form but stays working when the review history answers 404: the run exists, only its keys cannot be numbered", async () => {
    github()
      .get(attemptPath)
      .reply(200, workflowRun({ status: "waiting", name: "Deploy" }));
    github().get(pendingPath).reply(200, fixture("pending-deployments.json"));
    github().get(approvalsPath).reply(404, { message: "Not Found" });
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect(snapshot.status).toBe("working");
    expect(snapshot.inputRequests).toBeUndefined();
    expect(snapshot.message).toBe(
      "waiting: 'production' waits for a review by @octocat; 'production-eu' waits for a review by team eu-ops, @hubot " +
        "(no approval form: the run's review history could not be read (HTTP 404))",
    );
  });

  it("stays working when the pending deployments answer 404, instead of calling the run gone", async () => {
    github()
      .get(attemptPath)
      .reply(200, workflowRun({ status: "waiting", name: "Deploy" }));
    github().get(pendingPath).reply(404, { message: "Not Found" });
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect(snapshot).toMatchObject({
      status: "working",
      message: "waiting: the pending deployments could not be read (HTTP 404)",
    });
  });

  it("stays working, saying who it waits for, when this token cannot approve (without reading the review history)", async () => {
    const deployments = fixture("pending-deployments.json").slice(1);
    arrangeWaiting(deployments, null);
    const requests: UpstreamRequestEvent[] = [];
    const snapshot = await createTestAdapter({}, requests).doGetStatus(runRef, createTestContext());
    expect(snapshot).toMatchObject({
      status: "working",
      message: "waiting: 'production-eu' waits for a review by team eu-ops, @hubot",
    });
    expect(snapshot.inputRequests).toBeUndefined();
    expect(requests).toHaveLength(2);
  });

  it("says when a wait timer is what the run waits for", async () => {
    const [deployment] = fixture("pending-deployments.json");
    const startedAt = new Date(Date.now() - 60_000).toISOString();
    const timer = {
      ...deployment,
      current_user_can_approve: false,
      wait_timer: 30,
      wait_timer_started_at: startedAt,
      reviewers: [],
    };
    arrangeWaiting([timer], null);
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect(snapshot.status).toBe("working");
    expect(snapshot.message).toMatch(/^waiting: 'production' waits for its wait timer \(30 min, ends \d{4}-/);
  });

  it("gives keys that differ per attempt, so a re-run's approval is a new request", async () => {
    // The review history is the run's: attempt 1's approval of production is in it.
    arrangeWaiting(fixture("pending-deployments.json"), [review("approved", production)], 2);
    const snapshot = await createTestAdapter().doGetStatus({ ...runRef, attempt: 2 }, createTestContext());
    expect(Object.keys(snapshot.inputRequests ?? {})).toEqual(["deploy-9182736455-2-161088068-1"]);
  });

  it("gives a second wait on the same environment in one attempt a new key, and drops the answered one", async () => {
    const productionOnly = fixture("pending-deployments.json").slice(0, 1);
    const adapter = createTestAdapter();
    arrangeWaiting(productionOnly);
    const firstWait = await adapter.doGetStatus(runRef, createTestContext());
    // Approved; later another job waits for production too.
    arrangeWaiting(productionOnly, [...fixture("run-approvals.json"), review("approved", production)]);
    const secondWait = await adapter.doGetStatus(runRef, createTestContext());

    expect(Object.keys(firstWait.inputRequests ?? {})).toEqual([productionKey]);
    expect(Object.keys(secondWait.inputRequests ?? {})).toEqual(["deploy-9182736455-1-161088068-1"]);
  });

  it("never reissues an answered key, and keeps an open request's key while another environment is reviewed", async () => {
    const adapter = createTestAdapter();
    const keysOf = async (deployments: unknown[], reviews: unknown[]) => {
      arrangeWaiting(deployments, reviews);
      return Object.keys((await adapter.doGetStatus(runRef, createTestContext())).inputRequests ?? {}).sort();
    };
    // production and production-eu wait in parallel (two jobs).
    const first = await keysOf(bothApprovable(), []);
    // production-eu is approved; its job runs, then a third job waits on production-eu again.
    const second = await keysOf(bothApprovable(), [review("approved", productionEu)]);
    // production is approved; only the second production-eu wait is left.
    const third = await keysOf(bothApprovable().slice(1), [
      review("approved", productionEu),
      review("approved", production),
    ]);

    expect(first).toEqual([productionKey, productionEuKey]);
    expect(second).toEqual([productionKey, "deploy-9182736455-1-161088069-1"]);
    expect(third).toEqual(["deploy-9182736455-1-161088069-1"]);
    const issued = [first, second, third].flat();
    // production-eu's answered key is not issued again; production's open key held until its answer.
    expect(issued.filter((key) => key === productionEuKey)).toHaveLength(1);
    expect(issued.filter((key) => key === productionKey)).toHaveLength(2);
  });

  it("counts a review of several environments once for each, and leaves pending entries out", async () => {
    arrangeWaiting(bothApprovable(), [
      review("rejected", production, productionEu),
      review("approved", productionEu),
      review("pending", production),
    ]);
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect(Object.keys(snapshot.inputRequests ?? {}).sort()).toEqual([
      "deploy-9182736455-1-161088068-1",
      "deploy-9182736455-1-161088069-2",
    ]);
  });

  it("counts reviews by environment id compared as int64", async () => {
    const huge = "9007199254740993123";
    const deployment = { ...(bothApprovable()[0] as Record<string, unknown>), environment: { id: huge, name: "huge" } };
    // Past 2^53 only the string form keeps the id; 9007199254740993124 would be the same number.
    arrangeWaiting(
      [deployment],
      [
        review("approved", { id: huge, name: "huge" } as never),
        review("approved", { id: "9007199254740993124", name: "other" } as never),
      ],
    );
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect(Object.keys(snapshot.inputRequests ?? {})).toEqual([`deploy-9182736455-1-${huge}-1`]);
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
      { "deploy-9182736455-1-161088068-1": { action: "accept", content: { approve: true } } },
      createTestContext(),
    );
    expect(body).toEqual({ environment_ids: [161088068], state: "approved", comment: "Approved through jobtasks" });
  });

  it("approves through the keys of earlier versions (no suffix, or a waiting job id) as well", async () => {
    let body: any;
    github()
      .post(pendingPath, (sent) => ((body = sent), true))
      .reply(200, []);
    await createTestAdapter().doRespond!(
      runRef,
      { "deploy-9182736455-1-161088068": { action: "accept", content: { approve: true } } },
      createTestContext(),
    );
    expect(body).toEqual({ environment_ids: [161088068], state: "approved", comment: "Approved through jobtasks" });
    github()
      .post(pendingPath, (sent) => ((body = sent), true))
      .reply(200, []);
    await createTestAdapter().doRespond!(
      runRef,
      { "deploy-9182736455-1-161088069-25880022002": { action: "accept", content: { approve: true } } },
      createTestContext(),
    );
    expect(body).toEqual({ environment_ids: [161088069], state: "approved", comment: "Approved through jobtasks" });
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

  it.each([
    ["approve missing", { action: "accept" as const, content: {} }],
    ["no content", { action: "accept" as const }],
    ["approve 'yes'", { action: "accept" as const, content: { approve: "yes" } }],
    ["approve 'true' (a string)", { action: "accept" as const, content: { approve: "true" } }],
    ["approve 1", { action: "accept" as const, content: { approve: 1 } }],
  ])("refuses an accept with %s, naming the field, and reviews nothing", async (_label, response) => {
    // No interceptor is arranged: any review would fail with nock's "no match" error.
    const error = await createTestAdapter().doRespond!(
      runRef,
      { [productionKey]: response as never },
      createTestContext(),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidToolInputError);
    expect(error).toMatchObject({ field: `${productionKey}.approve`, problem: "must be true or false" });
  });

  it("reviews nothing of a batch when one answer in it is unreadable", async () => {
    const error = await createTestAdapter().doRespond!(
      runRef,
      {
        "deploy-9182736455-1-161088069-0": { action: "accept", content: { approve: true } },
        [productionKey]: { action: "accept", content: { approve: "yes" } },
      },
      createTestContext(),
    ).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ field: `${productionKey}.approve` });
  });

  it("leaves the deployment waiting when the form was dismissed (cancel), or the key is not this attempt's", async () => {
    await createTestAdapter().doRespond!(
      runRef,
      {
        [productionKey]: { action: "cancel" },
        "deploy-9182736455-2-161088068-0": { action: "accept", content: { approve: true } },
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
      createTestAdapter().doRespond!(
        runRef,
        { [productionKey]: { action: "accept", content: { approve: true } } },
        createTestContext(),
      ),
    ).resolves.toBeUndefined();
  });

  it("reports a rejected deployment, once GitHub concludes the run, as completed with isError", async () => {
    github()
      .get(attemptPath)
      .reply(200, workflowRun({ status: "completed", conclusion: "failure" }));
    github().get(`${attemptPath}/jobs`).query(true).reply(200, { total_count: 0, jobs: [] });
    github().get(`${runPath}/artifacts`).query(true).reply(200, { total_count: 0, artifacts: [] });
    const snapshot = await createTestAdapter().doGetStatus(runRef, createTestContext());
    expect(snapshot).toMatchObject({ status: "completed", result: { isError: true } });
  });
});
