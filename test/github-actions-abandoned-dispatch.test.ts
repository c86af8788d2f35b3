import { afterEach, describe, expect, it } from "vitest";
import { githubActions } from "@jobtasks/github-actions";
import { startFakeGithub } from "./support/fake-github-api.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { callToolThenLeave, heldAnswer, observeStart } from "./support/leaving-client.js";

/**
 * A client that disconnects while the workflow dispatch POST is in flight, through a real server and the
 * adapter's real octokit stack against the loopback GitHub fake: GitHub starts the run, nobody will hold its
 * task id, so the run must not be left running.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe("GitHub Actions: a client that leaves during the dispatch", () => {
  it("does not leave the run behind: the dispatch finishes and the run it created is cancelled", async () => {
    const github = cleanup.add(await startFakeGithub());
    const adapter = githubActions(
      {
        token: "ghp_E2eTokenAbandonedDispatch0123456789Ab",
        baseUrl: github.url,
        workflows: [{ tool: "deploy_app", repository: "octo-org/octo-app", workflow: "deploy.yml", ref: "main" }],
        requestRetries: 0,
        dispatch: { correlationPollMs: 5 },
      },
      {},
    );
    // Watch the start from the server's side: when it sees the client leave, and how doStart ends.
    const start = observeStart(adapter.tools.find((candidate) => candidate.name === "deploy_app")!);
    const server = cleanup.add(await startInProcessServer({ adapters: [{ name: "github", adapter }] }));

    const upstream = heldAnswer();
    github.holdDispatchAnswer = upstream.hold;

    const runId = github.nextRunId;
    const client = callToolThenLeave(server.url, "deploy_app");
    await upstream.arrived;
    client.leave();
    expect(await client.answer).toMatchObject({ name: "AbortError" });
    await start.clientLeft;
    upstream.release();
    expect(await start.ended()).toBe("threw");

    expect(github.requestsTo("POST", /\/dispatches$/)).toHaveLength(1);
    expect(github.runs.has(runId)).toBe(true);
    // The run was read back, then cancelled: the one it created, and only once.
    expect(github.requestsTo("GET", new RegExp(`/runs/${runId}/attempts/1$`)).length).toBeGreaterThan(0);
    expect(github.requestsTo("POST", /\/(cancel|force-cancel)$/).map((request) => request.path)).toEqual([
      `/repos/octo-org/octo-app/actions/runs/${runId}/cancel`,
    ]);
  });
});
