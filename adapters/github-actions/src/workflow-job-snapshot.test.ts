import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { sign } from "@octokit/webhooks-methods";
import type { EventDeliveryV1 } from "@jobtasks/core";
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

/**
 * A workflow_job delivery carries its job whole: for a run whose jobs a read has listed, it gives the
 * run's snapshot without a request to GitHub; where a read must say more, it says only that the run changed.
 */

const webhookSecret = "whsec-test-0123456789abcdef";
const attemptPath = `${runPath}/attempts/1`;
const jobsPath = `${attemptPath}/jobs`;
const payloadRef = { ...runRef, owner: "Octo-Org" };

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending, "every arranged GitHub call was made").toEqual([]);
});

async function delivery(payload: unknown): Promise<EventDeliveryV1> {
  const text = JSON.stringify(payload);
  return {
    headers: {
      "x-github-event": "workflow_job",
      "x-github-delivery": "5b1f6a80-cc7a-11e3-8f2d-7c1e5a0d2f11",
      "x-hub-signature-256": await sign(webhookSecret, text),
    },
    body: new TextEncoder().encode(text),
    receivedAt: Date.now(),
  };
}

/** The build job a step further on: "Run tests" done, "Upload coverage" running. */
const nextStep = () => fixture("webhook-workflow-job-in-progress.json");

/** An adapter that has read the run once: in progress, four jobs, build at 'Run tests'. */
async function adapterAfterOneRead(jobs: nock.Body = fixture("attempt-jobs-in-progress.json"), run = workflowRun()) {
  const requests: UpstreamRequestEvent[] = [];
  const adapter = createTestAdapter({ webhookSecret }, requests);
  github().get(attemptPath).reply(200, run);
  if (run["status"] === "in_progress") github().get(jobsPath).query({ per_page: 100 }).reply(200, jobs);
  const read = await adapter.doGetStatus(runRef, createTestContext());
  return { adapter, requests, read };
}

describe("a workflow_job delivery for a run whose jobs were read", () => {
  it("gives the run's snapshot, as a read of the same jobs would, without a request", async () => {
    const { adapter, requests, read } = await adapterAfterOneRead();
    expect(read.message).toBe("build: step 3/7 'Run tests' (2 of 4 jobs done)");
    const before = requests.length;
    const events = await adapter.events!.doReadDelivery(await delivery(nextStep()));
    expect(events.jobs).toEqual([
      {
        ref: payloadRef,
        snapshot: {
          status: "working",
          rawStatus: "in_progress",
          // GitHub's latest time known of the run: its read's updated_at is later than the step's start.
          updatedAt: "2026-11-20T10:04:12Z",
          message: "build: step 4/7 'Upload coverage' (2 of 4 jobs done)",
        },
      },
    ]);
    expect(requests.length).toBe(before);
    // What the same jobs read from GitHub would say.
    const jobs = fixture("attempt-jobs-in-progress.json");
    jobs.jobs[2] = nextStep().workflow_job;
    github().get(attemptPath).reply(200, workflowRun());
    github().get(jobsPath).query({ per_page: 100 }).reply(200, jobs);
    expect((await adapter.doGetStatus(runRef, createTestContext())).message).toBe(events.jobs[0]!.snapshot!.message);
  });

  it("counts a job finishing, and later deliveries build on it", async () => {
    const { adapter } = await adapterAfterOneRead();
    const finished = nextStep();
    Object.assign(finished.workflow_job, {
      status: "completed",
      conclusion: "success",
      completed_at: "2026-11-20T10:05:00Z",
    });
    for (const step of finished.workflow_job.steps) Object.assign(step, { status: "completed", conclusion: "success" });
    finished.action = "completed";
    const first = await adapter.events!.doReadDelivery(await delivery(finished));
    expect(first.jobs[0]!.snapshot).toMatchObject({
      message: "package: queued, waiting for a runner (3 of 4 jobs done)",
      updatedAt: "2026-11-20T10:05:00Z",
    });
    const packaging = nextStep();
    Object.assign(packaging.workflow_job, {
      id: 25880011004,
      name: "package",
      started_at: "2026-11-20T10:05:02Z",
      steps: [
        {
          name: "Set up job",
          status: "in_progress",
          conclusion: null,
          number: 1,
          started_at: "2026-11-20T10:05:02Z",
          completed_at: null,
        },
      ],
    });
    const second = await adapter.events!.doReadDelivery(await delivery(packaging));
    expect(second.jobs[0]!.snapshot?.message).toBe("package: step 1/1 'Set up job' (3 of 4 jobs done)");
  });

  it("never moves a job back: a late delivery of an earlier state keeps the later one", async () => {
    const { adapter } = await adapterAfterOneRead();
    await adapter.events!.doReadDelivery(await delivery(nextStep()));
    const late = fixture("webhook-workflow-job-in-progress.json");
    late.workflow_job.steps = fixture("attempt-jobs-in-progress.json").jobs[2].steps;
    const events = await adapter.events!.doReadDelivery(await delivery(late));
    expect(events.jobs[0]!.snapshot?.message).toBe("build: step 4/7 'Upload coverage' (2 of 4 jobs done)");
  });
});

describe("a workflow_job snapshot after a workflow_run delivery", () => {
  it("is never older than the run's time the workflow_run delivery told (else the server would drop it)", async () => {
    const { adapter } = await adapterAfterOneRead();
    const runDelivery = fixture("webhook-workflow-run-in-progress.json");
    Object.assign(runDelivery.workflow_run, { id: runRef.runId, updated_at: "2026-11-20T10:06:00Z" });
    const text = JSON.stringify(runDelivery);
    await adapter.events!.doReadDelivery({
      headers: { "x-github-event": "workflow_run", "x-hub-signature-256": await sign(webhookSecret, text) },
      body: new TextEncoder().encode(text),
      receivedAt: Date.now(),
    });
    const events = await adapter.events!.doReadDelivery(await delivery(nextStep()));
    expect(events.jobs[0]!.snapshot?.updatedAt).toBe("2026-11-20T10:06:00Z");
  });
});

describe("a workflow_job delivery that needs a read", () => {
  it("only says the run changed for a run this process has not read", async () => {
    const adapter = createTestAdapter({ webhookSecret });
    expect((await adapter.events!.doReadDelivery(await delivery(nextStep()))).jobs).toEqual([{ ref: payloadRef }]);
  });

  it("only says the run changed for a job waiting for an environment (the form needs the pending deployments)", async () => {
    const { adapter } = await adapterAfterOneRead();
    const waiting = fixture("webhook-workflow-job-waiting.json");
    waiting.workflow_job.run_id = runRef.runId;
    expect((await adapter.events!.doReadDelivery(await delivery(waiting))).jobs).toEqual([{ ref: payloadRef }]);
  });

  it("only says the run changed for a job that shows cancelled (whether the run was cancelled is in annotations)", async () => {
    const { adapter } = await adapterAfterOneRead();
    const cancelled = nextStep();
    Object.assign(cancelled.workflow_job, {
      status: "completed",
      conclusion: "cancelled",
      completed_at: "2026-11-20T10:05:00Z",
    });
    expect((await adapter.events!.doReadDelivery(await delivery(cancelled))).jobs).toEqual([{ ref: payloadRef }]);
  });

  it("only says the run changed for a run read as waiting, or as queued (no read listed its jobs)", async () => {
    const waitingRun = workflowRun({ status: "waiting" });
    const requests: UpstreamRequestEvent[] = [];
    const adapter = createTestAdapter({ webhookSecret }, requests);
    github().get(attemptPath).reply(200, waitingRun);
    github().get(`${runPath}/pending_deployments`).reply(200, []);
    await adapter.doGetStatus(runRef, createTestContext());
    expect((await adapter.events!.doReadDelivery(await delivery(nextStep()))).jobs).toEqual([{ ref: payloadRef }]);

    const { adapter: queuedAdapter } = await adapterAfterOneRead(undefined, workflowRun({ status: "queued" }));
    const queued = nextStep();
    Object.assign(queued.workflow_job, { status: "queued", started_at: null, steps: [] });
    expect((await queuedAdapter.events!.doReadDelivery(await delivery(queued))).jobs).toEqual([{ ref: payloadRef }]);
  });

  it("only says the run changed when the read listed more jobs than one page holds", async () => {
    const jobs = fixture("attempt-jobs-in-progress.json");
    jobs.total_count = 140;
    const { adapter } = await adapterAfterOneRead(jobs);
    expect((await adapter.events!.doReadDelivery(await delivery(nextStep()))).jobs).toEqual([{ ref: payloadRef }]);
  });
});
