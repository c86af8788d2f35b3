import { afterEach, describe, expect, it } from "vitest";
import { githubActions } from "@jobtasks/github-actions";
import { startFakeGithub } from "./support/fake-github-api.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { envelope, protocolVersion } from "./support/raw-rpc.js";

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
    // Watch the start from the server's side: when it sees the client leave, and when doStart settles.
    const tool = adapter.tools.find((candidate) => candidate.name === "deploy_app")!;
    const start = tool.doStart.bind(tool);
    let clientLeft!: () => void;
    const serverSawClientLeave = new Promise<void>((resolve) => (clientLeft = resolve));
    let startSettled!: Promise<unknown>;
    tool.doStart = (input, context) => {
      context.signal.addEventListener("abort", () => clientLeft(), { once: true });
      const starting = start(input, context);
      startSettled = starting.then(
        () => "returned",
        () => "threw",
      );
      return starting;
    };
    const server = cleanup.add(await startInProcessServer({ adapters: [{ name: "github", adapter }] }));

    let releaseDispatch!: () => void;
    const dispatchReleased = new Promise<void>((resolve) => (releaseDispatch = resolve));
    let dispatchArrived!: () => void;
    const dispatchInFlight = new Promise<void>((resolve) => (dispatchArrived = resolve));
    github.holdDispatchAnswer = () => {
      dispatchArrived();
      return dispatchReleased;
    };

    const runId = github.nextRunId;
    const client = new AbortController();
    const call = fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": protocolVersion,
        "mcp-method": "tools/call",
        "mcp-name": "deploy_app",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "deploy_app", arguments: {}, _meta: envelope(true) } }),
      signal: client.signal,
    }).catch((error: unknown) => error);

    await dispatchInFlight;
    client.abort();
    expect(await call).toMatchObject({ name: "AbortError" });
    await serverSawClientLeave;
    releaseDispatch();
    expect(await startSettled).toBe("threw");

    expect(github.requestsTo("POST", /\/dispatches$/)).toHaveLength(1);
    expect(github.runs.has(runId)).toBe(true);
    // The run was read back, then cancelled: the one it created, and only once.
    expect(github.requestsTo("GET", new RegExp(`/runs/${runId}/attempts/1$`)).length).toBeGreaterThan(0);
    expect(github.requestsTo("POST", /\/(cancel|force-cancel)$/).map((request) => request.path)).toEqual([`/repos/octo-org/octo-app/actions/runs/${runId}/cancel`]);
  });
});
