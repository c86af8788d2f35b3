import type { LogEntry } from "@jobtasks/testkit";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { GithubActionsOptions } from "./github-actions-adapter.js";
import {
  createTestAdapter,
  createTestContext,
  fixture,
  github,
  nock,
  runPath,
  workflowRun,
} from "./test-support/github-fixtures.js";

/**
 * A client that leaves while the dispatch (or re-run) POST is in flight: GitHub may already have started
 * the run, and nobody will ever hold its task id. The POST and the run's lookup are let finish, then the
 * run is cancelled and the log says so; a run that could not be found is logged as one that may exist.
 */

const dispatchPath = "/repos/octo-org/octo-app/actions/workflows/deploy.yml/dispatches";
const runsPath = "/repos/octo-org/octo-app/actions/workflows/deploy.yml/runs";
const newRunId = 9182799001;
const newRunPath = `/repos/octo-org/octo-app/actions/runs/${newRunId}`;

function deployWorkflow(correlationInput?: string): GithubActionsOptions {
  return {
    workflows: [
      {
        tool: "run_deploy",
        repository: "octo-org/octo-app",
        workflow: "deploy.yml",
        ref: "main",
        ...(correlationInput ? { correlationInput } : {}),
      },
    ],
  };
}

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending, "every arranged GitHub call was made").toEqual([]);
});

/** A POST whose answer waits for `release`; `received` resolves once the request reached "GitHub". */
function heldPost(path: string, answer: (body: any) => [number, string | Record<string, unknown>]) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let arrived!: () => void;
  const received = new Promise<void>((resolve) => (arrived = resolve));
  github()
    .post(path)
    .reply((_uri, body, callback) => {
      arrived();
      void released.then(() => callback(null, answer(body)));
    });
  return { received, release };
}

/** Start the tool, let the client leave once its POST reached GitHub, then let GitHub answer. */
async function leaveDuringPost(
  tool: { doStart: (input: any, context: any) => Promise<unknown>; inputSchema: { parse(input: unknown): unknown } },
  input: unknown,
  post: ReturnType<typeof heldPost>,
) {
  const client = new AbortController();
  const context = createTestContext({ signal: client.signal });
  const starting = tool.doStart(tool.inputSchema.parse(input), context);
  await post.received;
  client.abort(new Error("the client went away"));
  post.release();
  await expect(starting).rejects.toThrow("the client went away");
  return context.logEntries;
}

const logged = (entries: LogEntry[], level: LogEntry["level"]) => entries.filter((entry) => entry.level === level);

describe("a client that leaves while the dispatch is in flight", () => {
  it("lets the dispatch and the run's read-back finish, cancels the run it created, and logs it", async () => {
    const dispatch = heldPost(dispatchPath, () => [200, { workflow_run_id: newRunId }]);
    github()
      .get(`${newRunPath}/attempts/1`)
      .reply(200, { ...fixture("workflow-run.json"), id: newRunId, status: "queued", conclusion: null });
    let cancels = 0;
    github()
      .post(`${newRunPath}/cancel`)
      .reply(() => ((cancels += 1), [202, {}]));
    const tool = createTestAdapter(deployWorkflow()).tools.find((candidate) => candidate.name === "run_deploy")!;

    const entries = await leaveDuringPost(tool, {}, dispatch);
    expect(cancels).toBe(1);
    const [line] = logged(entries, "info");
    expect(line?.message).toBe(
      "the client left while the dispatch of workflow deploy.yml was in flight; cancelled the run it created",
    );
    expect(line?.fields).toMatchObject({ runId: newRunId, attempt: 1 });
    expect(logged(entries, "warn")).toEqual([]);
  });

  it("warns, naming the run, when the run it created could not be cancelled", async () => {
    const dispatch = heldPost(dispatchPath, () => [200, { workflow_run_id: newRunId }]);
    github()
      .get(`${newRunPath}/attempts/1`)
      .reply(200, { ...fixture("workflow-run.json"), id: newRunId, status: "queued", conclusion: null });
    github().post(`${newRunPath}/cancel`).reply(403, { message: "Resource not accessible by integration" });
    const tool = createTestAdapter(deployWorkflow()).tools.find((candidate) => candidate.name === "run_deploy")!;

    const entries = await leaveDuringPost(tool, {}, dispatch);
    const [line] = logged(entries, "warn");
    expect(line?.message).toBe(
      "the client left while the dispatch of workflow deploy.yml was in flight; the run it created could not be cancelled and may still run",
    );
    expect(line?.fields).toMatchObject({ runId: newRunId });
    expect(String(line?.fields.error)).toContain("HTTP 403");
  });

  it("finds the run of a 204 by its correlation input, then cancels it", async () => {
    let distinctId = "";
    const dispatch = heldPost(dispatchPath, (body) => ((distinctId = body.inputs.distinct_id), [204, ""]));
    github()
      .get(runsPath)
      .query(true)
      .reply(() => {
        const runs = fixture("workflow-runs-dispatched.json");
        runs.workflow_runs[0].display_title = `Deploy main (${distinctId})`;
        return [200, runs];
      });
    let cancels = 0;
    github()
      .post(`${newRunPath}/cancel`)
      .reply(() => ((cancels += 1), [202, {}]));
    const tool = createTestAdapter({
      ...deployWorkflow("distinct_id"),
      dispatch: { returnRunDetails: false, correlationTimeoutMs: 200, correlationPollMs: 5 },
    }).tools.find((candidate) => candidate.name === "run_deploy")!;

    const entries = await leaveDuringPost(tool, {}, dispatch);
    expect(cancels).toBe(1);
    expect(logged(entries, "info").map((entry) => entry.fields)).toEqual([
      expect.objectContaining({ runId: newRunId }),
    ]);
  });

  it("logs that a run may have started when a 204 names no run and none can be found", async () => {
    const dispatch = heldPost(dispatchPath, () => [204, ""]);
    const tool = createTestAdapter({
      ...deployWorkflow(),
      dispatch: { returnRunDetails: false, correlationTimeoutMs: 200, correlationPollMs: 5 },
    }).tools.find((candidate) => candidate.name === "run_deploy")!;

    const entries = await leaveDuringPost(tool, {}, dispatch);
    const [line] = logged(entries, "warn");
    expect(line?.message).toBe(
      "the client left while the dispatch of workflow deploy.yml was in flight; a run may have started that nobody follows",
    );
    expect(String(line?.fields.error)).toContain("answered without a run id");
  });

  it("sends nothing for a client that left before the dispatch was sent", async () => {
    const tool = createTestAdapter(deployWorkflow()).tools.find((candidate) => candidate.name === "run_deploy")!;
    const client = new AbortController();
    client.abort(new Error("the client went away"));
    await expect(
      tool.doStart(tool.inputSchema.parse({}), createTestContext({ signal: client.signal })),
    ).rejects.toThrow("the client went away");
  });
});

describe("a client that leaves while the re-run is in flight", () => {
  it("lets the re-run and the new attempt's read-back finish, cancels it, and logs it", async () => {
    github()
      .get(runPath)
      .reply(200, workflowRun({ status: "completed", conclusion: "failure", run_attempt: 1 }));
    const rerun = heldPost(`${runPath}/rerun`, () => [201, {}]);
    github()
      .get(`${runPath}/attempts/2`)
      .reply(200, workflowRun({ status: "queued", run_attempt: 2 }));
    let cancels = 0;
    github()
      .post(`${runPath}/cancel`)
      .reply(() => ((cancels += 1), [202, {}]));
    const tool = createTestAdapter().tools.find((candidate) => candidate.name === "rerun_run")!;

    const entries = await leaveDuringPost(tool, { runId: 9182736455 }, rerun);
    expect(cancels).toBe(1);
    const [line] = logged(entries, "info");
    expect(line?.message).toBe(
      "the client left while the re-run of run 9182736455 was in flight; cancelled the run it created",
    );
    expect(line?.fields).toMatchObject({ runId: 9182736455, attempt: 2 });
  });
});
