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

/**
 * These tests run with the production retry settings (requestRetries 2): a POST that changes something
 * must reach GitHub once, whatever it answers, and a 409 is final. A status read sends each GET once too:
 * the server's reader retries it (test/status-read-retries.test.ts measures a tasks/get during an outage).
 */

const dispatchPath = "/repos/octo-org/octo-app/actions/workflows/deploy.yml/dispatches";
const runsPath = "/repos/octo-org/octo-app/actions/workflows/deploy.yml/runs";

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending, "every arranged GitHub call was made").toEqual([]);
});

function deployTool(requests: UpstreamRequestEvent[], correlationInput?: string) {
  const workflow = {
    tool: "run_deploy",
    repository: "octo-org/octo-app",
    workflow: "deploy.yml",
    ...(correlationInput ? { correlationInput } : {}),
  };
  const adapter = createTestAdapter({ requestRetries: 2, workflows: [workflow] }, requests);
  return adapter.tools.find((tool) => tool.name === "run_deploy")!;
}

/** GitHub answers `status` to this POST, and would again to any retry (which then shows in the requests). */
function answerPost(path: string, status: number, body: Record<string, unknown> = { message: "Server Error" }): void {
  github().post(path).reply(status, body);
  github().post(path).optionally().times(2).reply(status, body);
}

const posts = (requests: UpstreamRequestEvent[]) => requests.filter((request) => request.method === "POST");

describe("retries with the production settings", () => {
  // This test once expected the status read to retry the 502 itself; the server's reader wrapped that in
  // its own retries, and one tasks/get cost 9 GETs and 16 s during an outage. The reader alone retries now.
  it("sends a status read's GET once after a server error, leaving the retry to the server's reader", async () => {
    const requests: UpstreamRequestEvent[] = [];
    github().get(`${runPath}/attempts/1`).reply(502, { message: "Bad gateway" });
    github()
      .get(`${runPath}/attempts/1`)
      .optionally()
      .times(2)
      .reply(200, workflowRun({ status: "queued" }));
    const error = await createTestAdapter({ requestRetries: 2 }, requests)
      .doGetStatus(runRef, createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ httpStatus: 502, isRetryable: true });
    expect(requests.map((request) => request.status)).toEqual([502]);
  });

  it("still retries a GET outside status reads (the read before a cancel) that met a server error", async () => {
    const requests: UpstreamRequestEvent[] = [];
    github().get(`${runPath}/attempts/1`).reply(502, { message: "Bad gateway" });
    github()
      .get(`${runPath}/attempts/1`)
      .reply(200, workflowRun({ status: "in_progress" }));
    github().post(`${runPath}/cancel`).reply(202, {});
    await createTestAdapter({ requestRetries: 2 }, requests).doCancel!(runRef, createTestContext());
    expect(requests.map((request) => request.status)).toEqual([502, 200, 202]);
  });

  it("acknowledges a cancel answered 409 at once, sending it only once", async () => {
    const requests: UpstreamRequestEvent[] = [];
    github().get(`${runPath}/attempts/1`).reply(200, workflowRun());
    answerPost(`${runPath}/cancel`, 409, { message: "Cannot cancel a workflow run that is completed." });
    await expect(
      createTestAdapter({ requestRetries: 2 }, requests).doCancel!(runRef, createTestContext()),
    ).resolves.toBeUndefined();
    // A retry would be awaited before doCancel resolves and would meet the optional 409s: one POST proves
    // the 409 was taken as final, with no retry and so no retry wait.
    expect(posts(requests)).toHaveLength(1);
  });

  it("never sends a dispatch twice: a 502 may have started the run, and says so", async () => {
    const requests: UpstreamRequestEvent[] = [];
    answerPost(dispatchPath, 502);
    const tool = deployTool(requests);
    const failure = await tool
      .doStart(tool.inputSchema.parse({}), createTestContext())
      .catch((error: unknown) => error);
    expect(posts(requests)).toHaveLength(1);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect((failure as UpstreamError).isRetryable).toBe(false);
    expect((failure as Error).message).toMatch(/may have started/);
  });

  it("finds the run of a dispatch answered 502 by its correlation input, when one is configured", async () => {
    const requests: UpstreamRequestEvent[] = [];
    let distinctId = "";
    github()
      .post(dispatchPath, (sent) => ((distinctId = sent.inputs.distinct_id), true))
      .reply(502, { message: "Server Error" });
    github().post(dispatchPath).optionally().times(2).reply(502, { message: "Server Error" });
    github()
      .get(runsPath)
      .query(true)
      .reply(() => {
        const runs = fixture("workflow-runs-dispatched.json");
        runs.workflow_runs[0].display_title = `Deploy main (${distinctId})`;
        return [200, runs];
      });
    const tool = deployTool(requests, "distinct_id");
    const started = await tool.doStart(tool.inputSchema.parse({}), createTestContext());
    expect(started.ref).toEqual({ owner: "octo-org", repo: "octo-app", runId: 9182799001, attempt: 1 });
    expect(posts(requests)).toHaveLength(1);
  });

  it("never sends a re-run twice", async () => {
    const requests: UpstreamRequestEvent[] = [];
    github()
      .get(runPath)
      .reply(200, workflowRun({ status: "completed", conclusion: "failure" }));
    answerPost(`${runPath}/rerun`, 502);
    const tool = createTestAdapter({ requestRetries: 2 }, requests).tools.find(
      (candidate) => candidate.name === "rerun_run",
    )!;
    await expect(
      tool.doStart(tool.inputSchema.parse({ runId: 9182736455 }), createTestContext()),
    ).rejects.toBeInstanceOf(UpstreamError);
    expect(posts(requests)).toHaveLength(1);
  });

  it("never sends an approval twice within one doRespond", async () => {
    const requests: UpstreamRequestEvent[] = [];
    answerPost(`${runPath}/pending_deployments`, 502);
    const answer = { "deploy-9182736455-1-161088068-0": { action: "accept" as const, content: { approve: true } } };
    await expect(
      createTestAdapter({ requestRetries: 2 }, requests).doRespond!(runRef, answer, createTestContext()),
    ).rejects.toBeInstanceOf(UpstreamError);
    expect(posts(requests)).toHaveLength(1);
  });
});
