import { InvalidToolInputError, UpstreamError } from "@jobtasks/core";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createTestAdapter,
  createTestContext,
  github,
  nock,
  runPath,
  runRef,
  workflowRun,
} from "./test-support/github-fixtures.js";

const commit = "4f1c2d3e4b5a69788796a5b4c3d2e1f0a9b8c7d6";
const runsPath = "/repos/octo-org/octo-app/actions/runs";

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending, "every arranged GitHub call was made").toEqual([]);
});

function watch(input: unknown) {
  const tool = createTestAdapter().tools.find((candidate) => candidate.name === "watch_run")!;
  return tool.doStart(tool.inputSchema.parse(input), createTestContext());
}

describe("watch_run by run id", () => {
  it("follows the latest attempt when none is named, with owner and repo defaulting to the only repository", async () => {
    github()
      .get(runPath)
      .reply(200, workflowRun({ run_attempt: 2 }));
    expect((await watch({ runId: 9182736455 })).ref).toEqual({ ...runRef, attempt: 2 });
  });

  it("follows a named earlier attempt", async () => {
    github()
      .get(runPath)
      .reply(200, workflowRun({ run_attempt: 2 }));
    expect((await watch({ owner: "octo-org", repo: "octo-app", runId: 9182736455, attempt: 1 })).ref).toEqual(runRef);
  });

  it("refuses an attempt that does not exist yet", async () => {
    github()
      .get(runPath)
      .reply(200, workflowRun({ run_attempt: 2 }));
    await expect(watch({ runId: 9182736455, attempt: 3 })).rejects.toMatchObject({ field: "attempt" });
  });

  it("refuses a run GitHub does not know as invalid input", async () => {
    github().get(runPath).reply(404, { message: "Not Found" });
    const error = await watch({ runId: 9182736455 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidToolInputError);
    expect(error).toMatchObject({ field: "runId" });
  });

  it("needs exactly one of runId and headSha", () => {
    const tool = createTestAdapter().tools.find((candidate) => candidate.name === "watch_run")!;
    expect(tool.inputSchema.safeParse({}).success).toBe(false);
    expect(tool.inputSchema.safeParse({ runId: 1, headSha: commit }).success).toBe(false);
  });
});

describe("watch_run by commit", () => {
  it("waits for the commit's run to appear, then follows it", async () => {
    github().get(runsPath).query({ per_page: 50, head_sha: commit }).reply(200, { total_count: 0, workflow_runs: [] });
    github()
      .get(runsPath)
      .query({ per_page: 50, head_sha: commit })
      .reply(200, { total_count: 1, workflow_runs: [workflowRun({ status: "queued" })] });
    expect((await watch({ headSha: commit })).ref).toEqual(runRef);
  });

  it("asks which workflow when the commit triggered several, and picks the named one", async () => {
    const lint = workflowRun({ id: 9182736999, name: "Lint", path: ".github/workflows/lint.yml" });
    const runs = { total_count: 2, workflow_runs: [lint, workflowRun()] };
    github().get(runsPath).query(true).reply(200, runs);
    await expect(watch({ headSha: commit })).rejects.toMatchObject({ field: "workflow" });

    github().get(runsPath).query(true).reply(200, runs);
    expect((await watch({ headSha: commit, workflow: "ci.yml" })).ref).toEqual(runRef);
  });

  it("gives up, bounded, when no run appears for the commit", async () => {
    github().get(runsPath).query(true).times(200).optionally().reply(200, { total_count: 0, workflow_runs: [] });
    const error = await watch({ headSha: commit }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as Error).message).toContain(`for commit ${commit} appeared`);
  });
});
