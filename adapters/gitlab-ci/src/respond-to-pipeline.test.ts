import { AnswersPartlySettledError, InvalidToolInputError, UpstreamError } from "@jobtasks/core";
import { createTestContext } from "@jobtasks/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  at,
  createMockGitlab,
  createTestAdapter,
  json,
  pipeline,
  project,
  projectPath,
  recordPost,
} from "./test-support/mock-gitlab.js";

// A fresh GitLab per test; every answer a test arranged must have been asked for.
let mock = createMockGitlab();
beforeEach(() => {
  mock = createMockGitlab();
});
afterEach(() => mock.agent.assertNoPendingInterceptors());

const ref = { project, pipelineId: 1284711 };
const approvalKey = "approve-deployment-41207-after-1-approvals";
const playKey = "play-job-7710022";

describe("answering a pipeline", () => {
  it("rejects the deployment when the agent declines", async () => {
    const reviews: unknown[] = [];
    recordPost(mock, `${projectPath}/deployments/41207/approval`, 201, { status: "rejected" }, reviews);
    await createTestAdapter(mock).doRespond!(ref, { [approvalKey]: { action: "decline" } }, createTestContext());
    expect(reviews).toEqual([{ status: "rejected", comment: "Rejected through jobtasks" }]);
  });

  it("refuses an unreadable answer before acting on any of the batch", async () => {
    // No interceptor: a request to GitLab would fail the test.
    const error = await createTestAdapter(mock).doRespond!(
      ref,
      {
        [playKey]: { action: "accept", content: { play: true } },
        [approvalKey]: { action: "accept", content: { approve: "yes" } },
      },
      createTestContext(),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidToolInputError);
    expect(error).toMatchObject({ field: `${approvalKey}.approve` });
  });

  it("leaves a manual job waiting when the agent declines or says play: false, and says the question stays open", async () => {
    const outcome = await createTestAdapter(mock).doRespond!(
      ref,
      { [playKey]: { action: "decline" }, "play-job-7710023": { action: "accept", content: { play: false } } },
      createTestContext(),
    );
    expect(outcome).toEqual({ leftOpen: [playKey, "play-job-7710023"] });
  });

  it("says a dismissed form (cancel) leaves the question open; a settled one is not named", async () => {
    const reviews: unknown[] = [];
    recordPost(mock, `${projectPath}/deployments/41207/approval`, 201, { status: "approved" }, reviews);
    const outcome = await createTestAdapter(mock).doRespond!(
      ref,
      { [playKey]: { action: "cancel" }, [approvalKey]: { action: "accept", content: { approve: true } } },
      createTestContext(),
    );
    expect(outcome).toEqual({ leftOpen: [playKey] });
    expect(reviews).toHaveLength(1);
  });

  it("takes a job that no longer waits (someone played it first) as answered", async () => {
    mock.gitlab
      .intercept({ path: at(`${projectPath}/jobs/7710022/play`), method: "POST" })
      .reply(400, { message: "400 Unplayable Job" }, json);
    const outcome = await createTestAdapter(mock).doRespond!(
      ref,
      { [playKey]: { action: "accept", content: { play: true } } },
      createTestContext(),
    );
    expect(outcome).toEqual({ leftOpen: [] });
  });

  it("takes a deployment that no longer waits for approvals as answered", async () => {
    mock.gitlab
      .intercept({ path: at(`${projectPath}/deployments/41207/approval`), method: "POST" })
      .reply(400, { message: "This deployment is not waiting for approvals." }, json);
    const outcome = await createTestAdapter(mock).doRespond!(
      ref,
      { [approvalKey]: { action: "accept", content: { approve: true } } },
      createTestContext(),
    );
    expect(outcome).toEqual({ leftOpen: [] });
  });

  it.each([
    [400, "You don't have permission to approve this deployment. Contact the project or group owner for help."],
    [400, "You cannot approve your own deployment."],
    [403, "403 Forbidden"],
  ])("passes a refusal (HTTP %i) on saying why: the question stays open", async (status, message) => {
    mock.gitlab
      .intercept({ path: at(`${projectPath}/deployments/41207/approval`), method: "POST" })
      .reply(status, { message }, json);
    const error = await createTestAdapter(mock).doRespond!(
      ref,
      { [approvalKey]: { action: "accept", content: { approve: true } } },
      createTestContext(),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    const text = (error as UpstreamError).message;
    expect(text).toContain(message);
    expect(text).toMatch(/^GitLab refused the approval of the deployment/);
    expect(text).not.toMatch(/https?:|41207|acme|projects\//);
  });

  it("a refusal after GitLab took an earlier answer of the batch names the taken one as settled", async () => {
    mock.gitlab
      .intercept({ path: at(`${projectPath}/jobs/7710022/play`), method: "POST" })
      .reply(200, { id: 7710022, status: "pending" }, json);
    mock.gitlab
      .intercept({ path: at(`${projectPath}/deployments/41207/approval`), method: "POST" })
      .reply(400, { message: "You don't have permission to approve this deployment." }, json);
    const error = await createTestAdapter(mock).doRespond!(
      ref,
      {
        [playKey]: { action: "accept", content: { play: true } },
        "play-job-7710023": { action: "decline" },
        [approvalKey]: { action: "accept", content: { approve: true } },
      },
      createTestContext(),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AnswersPartlySettledError);
    // Only the played job is settled; the declined one still waits, the refused approval too.
    expect((error as AnswersPartlySettledError).settledKeys).toEqual([playKey]);
    const cause = (error as AnswersPartlySettledError).cause;
    expect(cause).toBeInstanceOf(UpstreamError);
    expect((cause as UpstreamError).message).toMatch(/^GitLab refused the approval of the deployment: .*permission/);
  });

  it("a refusal of the first answer it acts on is a plain refusal: nothing was settled", async () => {
    mock.gitlab
      .intercept({ path: at(`${projectPath}/jobs/7710022/play`), method: "POST" })
      .reply(403, { message: "403 Forbidden" }, json);
    const error = await createTestAdapter(mock).doRespond!(
      ref,
      {
        [playKey]: { action: "accept", content: { play: true } },
        [approvalKey]: { action: "accept", content: { approve: true } },
      },
      createTestContext(),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).not.toBeInstanceOf(AnswersPartlySettledError);
  });

  it("leaves out a link GitLab's words hold: it names the host", async () => {
    mock.gitlab
      .intercept({ path: at(`${projectPath}/deployments/41207/approval`), method: "POST" })
      .reply(400, { message: "Approvals are closed, see https://gitlab.internal.example/help/approvals" }, json);
    const error = await createTestAdapter(mock).doRespond!(
      ref,
      { [approvalKey]: { action: "accept", content: { approve: true } } },
      createTestContext(),
    ).catch((caught: unknown) => caught);
    expect((error as UpstreamError).message).toBe(
      "GitLab refused the approval of the deployment: HTTP 400: Approvals are closed, see (a link)",
    );
  });

  it("passes a refusal to play a job on saying why", async () => {
    mock.gitlab
      .intercept({ path: at(`${projectPath}/jobs/7710022/play`), method: "POST" })
      .reply(403, { message: "403 Forbidden" }, json);
    const error = await createTestAdapter(mock).doRespond!(
      ref,
      { [playKey]: { action: "accept", content: { play: true } } },
      createTestContext(),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).message).toMatch(/^GitLab refused to play the manual job: .*403 Forbidden/);
  });
});

describe("cancelling a pipeline", () => {
  it("asks GitLab to cancel, and keeps reporting working while GitLab is canceling", async () => {
    const adapter = createTestAdapter(mock);
    const cancels: unknown[] = [];
    recordPost(mock, `${projectPath}/pipelines/1284711/cancel`, 200, pipeline({ status: "canceling" }), cancels);
    await adapter.doCancel!(ref, createTestContext());
    expect(cancels).toHaveLength(1);
    mock.gitlab
      .intercept({ path: at(`${projectPath}/pipelines/1284711`), method: "GET" })
      .reply(200, pipeline({ status: "canceling" }), json);
    mock.gitlab.intercept({ path: at(`${projectPath}/pipelines/1284711/jobs`), method: "GET" }).reply(200, [], json);
    expect(await adapter.doGetStatus(ref, createTestContext())).toMatchObject({
      status: "working",
      rawStatus: "canceling",
    });
  });
});
