import { UpstreamError } from "@jobtasks/core";
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

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending, "every arranged GitHub call was made").toEqual([]);
});

const packageAnnotationsPath = "/repos/octo-org/octo-app/check-runs/25880011004/annotations";

/**
 * The in-progress jobs with the queued job 'package' concluded cancelled, one job still running; its
 * check run's annotation says why ("run-cancelled": someone cancelled the run; "concurrency": the job's
 * own concurrency group cancelled it, with the run left healthy).
 */
function arrangeCancelledJob(
  cancelledAt: string,
  why: "run-cancelled" | "concurrency" = "run-cancelled",
  change?: (jobs: any) => void,
) {
  const jobs = fixture("attempt-jobs-in-progress.json");
  jobs.jobs[3] = { ...jobs.jobs[3], status: "completed", conclusion: "cancelled", completed_at: cancelledAt };
  change?.(jobs);
  github().get(attemptPath).reply(200, workflowRun());
  github().get(`${attemptPath}/jobs`).query(true).reply(200, jobs);
  github()
    .get(packageAnnotationsPath)
    .query(true)
    .reply(200, fixture(`check-run-annotations-${why}.json`));
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
    github()
      .get(attemptPath)
      .reply(200, workflowRun({ status: "completed", conclusion: "failure" }));
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
    arrangeCancelledJob(new Date().toISOString());
    const stopping = await adapter.doGetStatus(runRef, createTestContext());
    expect(stopping).toMatchObject({
      status: "working",
      message: "cancel requested: waiting for GitHub to stop 1 running job",
    });

    github()
      .get(attemptPath)
      .reply(200, workflowRun({ status: "completed", conclusion: "cancelled" }));
    expect(await adapter.doGetStatus(runRef, createTestContext())).toMatchObject({ status: "cancelled" });
  });

  it("does not mistake fail-fast cancellations next to a failed job for a cancel of the run", async () => {
    const jobs = fixture("attempt-jobs-in-progress.json");
    jobs.jobs[1] = { ...jobs.jobs[1], conclusion: "failure" };
    jobs.jobs[3] = {
      ...jobs.jobs[3],
      status: "completed",
      conclusion: "cancelled",
      completed_at: "2026-11-20T10:02:00Z",
    };
    github().get(attemptPath).reply(200, workflowRun());
    github().get(`${attemptPath}/jobs`).query(true).reply(200, jobs);
    const snapshot = await createTestAdapter({ forceCancelAfterMs: 1000 }).doGetStatus(runRef, createTestContext());
    expect(snapshot.message).toBe("build: step 3/7 'Run tests' (3 of 4 jobs done)");
  });

  it("force-cancels once the grace period since the first cancelled job has passed", async () => {
    const cancelledAt = "2026-11-20T10:02:00Z";
    const now = () => Date.parse(cancelledAt) + 4 * 60_000 + 30_000;
    arrangeCancelledJob(cancelledAt);
    const force = github().post(`${runPath}/force-cancel`).reply(202, {});
    const snapshot = await createTestAdapter({ forceCancelAfterMs: 4 * 60_000, now }).doGetStatus(
      runRef,
      createTestContext(),
    );
    expect(force.isDone()).toBe(true);
    expect(snapshot.message).toBe(
      "cancel requested: waiting for GitHub to stop 1 running job; force-cancel sent after a grace of 240 s",
    );
  });

  it("does not send force-cancel on every poll past the grace: only in the first minute of every 10 (GitHub's timestamps, no memory)", async () => {
    const cancelledAt = "2026-11-20T10:02:00Z";
    const grace = 4 * 60_000;
    const dueAt = Date.parse(cancelledAt) + grace;
    const messageAt = async (afterDueMs: number) => {
      arrangeCancelledJob(cancelledAt);
      const adapter = createTestAdapter({ forceCancelAfterMs: grace, now: () => dueAt + afterDueMs });
      return (await adapter.doGetStatus(runRef, createTestContext())).message;
    };
    // Two minutes after it was due: outside the window, no POST (nock would refuse one).
    expect(await messageAt(2 * 60_000)).toBe(
      "cancel requested: waiting for GitHub to stop 1 running job; force-cancel due after a grace of 240 s, next sent from 2026-11-20T10:16:00.000Z",
    );
    // Ten minutes and 20 s after: the next window, sent again (the run is still not stopping).
    const force = github().post(`${runPath}/force-cancel`).reply(202, {});
    expect(await messageAt(10 * 60_000 + 20_000)).toBe(
      "cancel requested: waiting for GitHub to stop 1 running job; force-cancel sent after a grace of 240 s",
    );
    expect(force.isDone()).toBe(true);
  });

  it("does not force-cancel within the grace period", async () => {
    const cancelledAt = "2026-11-20T10:02:00Z";
    const now = () => Date.parse(cancelledAt) + 60_000;
    arrangeCancelledJob(cancelledAt);
    const snapshot = await createTestAdapter({ forceCancelAfterMs: 4 * 60_000, now }).doGetStatus(
      runRef,
      createTestContext(),
    );
    expect(snapshot.message).toBe("cancel requested: waiting for GitHub to stop 1 running job");
  });

  it("never force-cancels a healthy run whose job its own concurrency group cancelled (cancel-in-progress)", async () => {
    const cancelledAt = "2026-11-20T10:02:00Z";
    const now = () => Date.parse(cancelledAt) + 60 * 60_000;
    arrangeCancelledJob(cancelledAt, "concurrency");
    // No force-cancel interceptor: a POST would fail the test with nock's "no match".
    const snapshot = await createTestAdapter({ forceCancelAfterMs: 60_000, now }).doGetStatus(
      runRef,
      createTestContext(),
    );
    expect(snapshot.message).toBe("build: step 3/7 'Run tests' (3 of 4 jobs done)");
  });

  it.each([
    [
      "403 (a fine-grained token without Checks access)",
      403,
      { message: "Resource not accessible by personal access token" },
    ],
    ["404", 404, { message: "Not Found" }],
  ])(
    "takes annotations answered %s as no evidence of a run cancel: plain progress, no force-cancel, no failure",
    async (_label, status, body) => {
      const cancelledAt = "2026-11-20T10:02:00Z";
      const now = () => Date.parse(cancelledAt) + 60 * 60_000;
      const jobs = fixture("attempt-jobs-in-progress.json");
      jobs.jobs[3] = { ...jobs.jobs[3], status: "completed", conclusion: "cancelled", completed_at: cancelledAt };
      github().get(attemptPath).reply(200, workflowRun());
      github().get(`${attemptPath}/jobs`).query(true).reply(200, jobs);
      github().get(packageAnnotationsPath).query(true).reply(status, body);
      // No force-cancel interceptor: a POST would fail the test with nock's "no match".
      const snapshot = await createTestAdapter({ forceCancelAfterMs: 60_000, now }).doGetStatus(
        runRef,
        createTestContext(),
      );
      expect(snapshot).toMatchObject({ status: "working", message: "build: step 3/7 'Run tests' (3 of 4 jobs done)" });
    },
  );

  it("still fails the read retryably when the annotations answer a server error (the next poll looks again)", async () => {
    const jobs = fixture("attempt-jobs-in-progress.json");
    jobs.jobs[3] = {
      ...jobs.jobs[3],
      status: "completed",
      conclusion: "cancelled",
      completed_at: "2026-11-20T10:02:00Z",
    };
    github().get(attemptPath).reply(200, workflowRun());
    github().get(`${attemptPath}/jobs`).query(true).reply(200, jobs);
    github().get(packageAnnotationsPath).query(true).reply(502, { message: "Bad gateway" });
    const error = await createTestAdapter({ requestRetries: 0 })
      .doGetStatus(runRef, createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ isRetryable: true });
  });

  it("recognises a run cancel when an earlier job was cancelled by its own concurrency group", async () => {
    const cancelledAt = "2026-11-20T10:05:00Z";
    const jobs = fixture("attempt-jobs-in-progress.json");
    // lint was cancelled by its concurrency group first; later someone cancelled the run (package).
    jobs.jobs[0] = { ...jobs.jobs[0], conclusion: "cancelled", completed_at: "2026-11-20T10:01:02Z" };
    jobs.jobs[3] = { ...jobs.jobs[3], status: "completed", conclusion: "cancelled", completed_at: cancelledAt };
    github().get(attemptPath).reply(200, workflowRun());
    github().get(`${attemptPath}/jobs`).query(true).reply(200, jobs);
    github()
      .get("/repos/octo-org/octo-app/check-runs/25880011001/annotations")
      .query(true)
      .reply(200, fixture("check-run-annotations-concurrency.json"));
    github().get(packageAnnotationsPath).query(true).reply(200, fixture("check-run-annotations-run-cancelled.json"));
    const force = github().post(`${runPath}/force-cancel`).reply(202, {});
    const now = () => Date.parse(cancelledAt) + 4 * 60_000 + 30_000;
    const snapshot = await createTestAdapter({ forceCancelAfterMs: 4 * 60_000, now }).doGetStatus(
      runRef,
      createTestContext(),
    );
    expect(snapshot.message).toBe(
      "cancel requested: waiting for GitHub to stop 1 running job; force-cancel sent after a grace of 240 s",
    );
    // The grace counts from the job that shows the run cancel (10:05), not from lint's earlier cancel.
    expect(force.isDone()).toBe(true);
  });

  it("reads the cancelled job's annotations once per poll, on top of the attempt and its jobs", async () => {
    const requests: UpstreamRequestEvent[] = [];
    const adapter = createTestAdapter({}, requests);
    for (let poll = 0; poll < 2; poll += 1) {
      arrangeCancelledJob("2026-11-20T10:02:00Z", "concurrency");
      await adapter.doGetStatus(runRef, createTestContext());
    }
    expect(requests).toHaveLength(6);
    expect(requests.filter((request) => request.path.split("?")[0] === packageAnnotationsPath)).toHaveLength(2);
  });
});
