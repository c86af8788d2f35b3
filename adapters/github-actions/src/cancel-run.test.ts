import { UpstreamError } from "@jobtasks/core";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestAdapter, createTestContext, fixture, github, nock, runPath, runRef, workflowRun } from "./test-support/github-fixtures.js";

const attemptPath = `${runPath}/attempts/1`;

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending, "every arranged GitHub call was made").toEqual([]);
});

/** The in-progress jobs after a cancel: queued jobs concluded cancelled, one job still stopping. */
function cancellingJobs(cancelledAt: string) {
  const jobs = fixture("attempt-jobs-in-progress.json");
  jobs.jobs[3] = { ...jobs.jobs[3], status: "completed", conclusion: "cancelled", completed_at: cancelledAt };
  return jobs;
}

describe("doCancel", () => {
  it("asks GitHub to cancel a running attempt (202)", async () => {
    github().get(attemptPath).reply(200, workflowRun());
    const cancel = github().post(`${runPath}/cancel`).reply(202, {});
    await createTestAdapter().doCancel!(runRef, createTestContext());
    expect(cancel.isDone()).toBe(true);
  });

  it("acknowledges a cancel that came too late (409)", async () => {
    github().get(attemptPath).reply(200, workflowRun());
    github().post(`${runPath}/cancel`).reply(409, { message: "Cannot cancel a workflow run that is completed." });
    await expect(createTestAdapter().doCancel!(runRef, createTestContext())).resolves.toBeUndefined();
  });

  it("does not cancel when the pinned attempt is finished: the run now belongs to a later re-run", async () => {
    github().get(attemptPath).reply(200, workflowRun({ status: "completed", conclusion: "failure" }));
    await createTestAdapter().doCancel!(runRef, createTestContext());
  });

  it("passes other refusals on", async () => {
    github().get(attemptPath).reply(200, workflowRun());
    github().post(`${runPath}/cancel`).reply(403, { message: "Must have admin rights to Repository." });
    await expect(createTestAdapter().doCancel!(runRef, createTestContext())).rejects.toBeInstanceOf(UpstreamError);
  });
});

describe("a run being cancelled", () => {
  it("reports 'cancel requested' while GitHub stops it, then cancelled", async () => {
    const adapter = createTestAdapter();
    github().get(attemptPath).reply(200, workflowRun());
    github().get(`${attemptPath}/jobs`).query(true).reply(200, cancellingJobs(new Date().toISOString()));
    const stopping = await adapter.doGetStatus(runRef, createTestContext());
    expect(stopping).toMatchObject({ status: "working", message: "cancel requested: waiting for GitHub to stop 1 running job" });

    github().get(attemptPath).reply(200, workflowRun({ status: "completed", conclusion: "cancelled" }));
    expect(await adapter.doGetStatus(runRef, createTestContext())).toMatchObject({ status: "cancelled" });
  });

  it("does not mistake fail-fast cancellations next to a failed job for a cancel of the run", async () => {
    const jobs = cancellingJobs("2026-11-20T10:02:00Z");
    jobs.jobs[1] = { ...jobs.jobs[1], conclusion: "failure" };
    github().get(attemptPath).reply(200, workflowRun());
    github().get(`${attemptPath}/jobs`).query(true).reply(200, jobs);
    const snapshot = await createTestAdapter({ forceCancelAfterMs: 1000 }).doGetStatus(runRef, createTestContext());
    expect(snapshot.message).toBe("build: step 3/7 'Run tests' (3 of 4 jobs done)");
  });

  it("force-cancels once the grace period since the first cancelled job has passed", async () => {
    const cancelledAt = "2026-11-20T10:02:00Z";
    const now = () => Date.parse(cancelledAt) + 5 * 60_000;
    github().get(attemptPath).reply(200, workflowRun());
    github().get(`${attemptPath}/jobs`).query(true).reply(200, cancellingJobs(cancelledAt));
    const force = github().post(`${runPath}/force-cancel`).reply(202, {});
    const snapshot = await createTestAdapter({ forceCancelAfterMs: 4 * 60_000, now }).doGetStatus(runRef, createTestContext());
    expect(force.isDone()).toBe(true);
    expect(snapshot.message).toBe("cancel requested: waiting for GitHub to stop 1 running job; force-cancel sent after a grace of 240 s");
  });

  it("does not force-cancel within the grace period", async () => {
    const cancelledAt = "2026-11-20T10:02:00Z";
    const now = () => Date.parse(cancelledAt) + 60_000;
    github().get(attemptPath).reply(200, workflowRun());
    github().get(`${attemptPath}/jobs`).query(true).reply(200, cancellingJobs(cancelledAt));
    const snapshot = await createTestAdapter({ forceCancelAfterMs: 4 * 60_000, now }).doGetStatus(runRef, createTestContext());
    expect(snapshot.message).toBe("cancel requested: waiting for GitHub to stop 1 running job");
  });
});
