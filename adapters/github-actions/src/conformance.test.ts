import { runAdapterConformance } from "@jobtasks/testkit";
import { beforeAll } from "vitest";
import type { RunRef } from "./run-ref.js";
import {
  createTestAdapter,
  fixture,
  fixtureText,
  github,
  nock,
  testToken,
  workflowRun,
} from "./test-support/github-fixtures.js";

const owner = "octo-org";
const repo = "octo-app";
const repositoryPath = `/repos/${owner}/${repo}/actions`;
let nextRunId = 9_300_000_000;

beforeAll(() => nock.disableNetConnect());

/** A fresh run id per arrangement, so that no test reads another one's interceptors. */
function newRun(): { ref: RunRef; path: string } {
  nextRunId += 1;
  return { ref: { owner, repo, runId: nextRunId, attempt: 1 }, path: `${repositoryPath}/runs/${nextRunId}` };
}

/** Make GitHub report `rawStatus` ("in_progress", "completed/failure", ...) for a new run. */
function arrangeRun(rawStatus: string): RunRef {
  const [status, conclusion = null] = rawStatus.split("/");
  const { ref, path } = newRun();
  const attemptPath = `${path}/attempts/1`;
  github()
    .get(attemptPath)
    .reply(200, workflowRun({ id: ref.runId, status, conclusion }));
  if (status === "in_progress") {
    github().get(`${attemptPath}/jobs`).query(true).reply(200, fixture("attempt-jobs-in-progress.json"));
  }
  if (status === "waiting") {
    github().get(`${path}/pending_deployments`).reply(200, fixture("pending-deployments.json"));
    github().get(`${path}/approvals`).reply(200, fixture("run-approvals.json"));
  }
  if (status === "completed" && conclusion !== "cancelled") {
    github().get(`${attemptPath}/jobs`).query(true).reply(200, fixture("attempt-jobs-failure.json"));
    github().get(`${path}/artifacts`).query(true).reply(200, fixture("artifacts.json"));
    github().get(`${repositoryPath}/jobs/25880011003/logs`).optionally().reply(200, fixtureText("job-log-failure.txt"));
  }
  return ref;
}

const approvals = new Map<string, unknown>();
const cancels = new Set<string>();

runAdapterConformance<RunRef>({
  name: "github-actions",
  secrets: [testToken],
  createAdapter() {
    // The start scenario: a dispatch that names its run, and that run's first read.
    github().post(`${repositoryPath}/workflows/ci.yml/dispatches`).optionally().reply(200, {
      workflow_run_id: 9182799001,
      html_url: "https://github.com/octo-org/octo-app/actions/runs/9182799001",
    });
    // Read twice: once by the dispatch (the run must be readable before a task is handed out), once by the suite.
    github()
      .get(`${repositoryPath}/runs/9182799001/attempts/1`)
      .times(2)
      .optionally()
      .reply(200, workflowRun({ id: 9182799001, status: "queued" }));
    // No GET retries: the retryable-failure scenario answers one 503 and would otherwise wait out 1 + 4 s.
    return createTestAdapter({
      requestRetries: 0,
      workflows: [{ tool: "run_ci", repository: `${owner}/${repo}`, workflow: "ci.yml" }],
    });
  },
  cleanup() {
    nock.cleanAll();
  },
  statuses: [
    { rawStatus: "requested", expected: "working" },
    { rawStatus: "queued", expected: "working" },
    { rawStatus: "pending", expected: "working" },
    { rawStatus: "in_progress", expected: "working" },
    { rawStatus: "waiting", expected: "input_required" },
    { rawStatus: "completed/success", expected: "completed", isError: false },
    { rawStatus: "completed/neutral", expected: "completed", isError: false },
    { rawStatus: "completed/skipped", expected: "completed", isError: false },
    { rawStatus: "completed/failure", expected: "completed", isError: true },
    { rawStatus: "completed/timed_out", expected: "completed", isError: true },
    { rawStatus: "completed/startup_failure", expected: "completed", isError: true },
    { rawStatus: "completed/action_required", expected: "completed", isError: true },
    { rawStatus: "completed/stale", expected: "completed", isError: true },
    { rawStatus: "completed/cancelled", expected: "cancelled" },
  ],
  arrangeStatus: arrangeRun,
  unknownRawStatus: "hibernating",
  arrangeNotFound() {
    const { ref, path } = newRun();
    github()
      .get(`${path}/attempts/1`)
      .reply(404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
    return ref;
  },
  arrangeRetryableFailure() {
    const { ref, path } = newRun();
    github().get(`${path}/attempts/1`).reply(503, { message: "Service Unavailable" });
    return ref;
  },
  start: { tool: "run_ci", input: { ref: "main" } },
  inputRequired: {
    arrange() {
      const ref = arrangeRun("waiting");
      github()
        .post(
          `${repositoryPath}/runs/${ref.runId}/pending_deployments`,
          (body) => (approvals.set(String(ref.runId), body), true),
        )
        .reply(200, []);
      return ref;
    },
    response: { action: "accept", content: { approve: true, comment: "approved by the conformance suite" } },
    verifyResponded(ref) {
      const body = approvals.get(String(ref.runId)) as Record<string, unknown> | undefined;
      return body?.state === "approved" && JSON.stringify(body.environment_ids) === "[161088068]";
    },
  },
  cancel: {
    arrange() {
      const { ref, path } = newRun();
      github()
        .get(`${path}/attempts/1`)
        .reply(200, workflowRun({ id: ref.runId, status: "in_progress" }));
      github()
        .post(`${path}/cancel`)
        .reply(() => {
          cancels.add(String(ref.runId));
          return [202, {}];
        });
      return ref;
    },
    verifyCancelRequested: (ref) => cancels.has(String(ref.runId)),
  },
});
