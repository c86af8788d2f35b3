import type { Dispatcher } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { gitlabCi } from "@jobtasks/gitlab-ci";
import { startFakeGitlab, type FakeGitlab } from "./support/fake-gitlab.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { callToolThenLeave, heldAnswer, observeStart } from "./support/leaving-client.js";

/**
 * A client that disconnects while GitLab creates its pipeline (or retries one), through a real server: the
 * POST is not cut short, doStart returns the pipeline, and the server cancels it, since nobody will hold its
 * task id. The POST is held on its way to the fake GitLab until the test has seen the client leave.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const project = "acme/shop";

/** The fake's dispatcher, holding every POST whose path matches until `hold` resolves. */
function holdingPosts(gitlab: FakeGitlab, pattern: RegExp, hold: () => Promise<void>): Dispatcher {
  return gitlab.agent.compose((dispatch) => (options, handler) => {
    if (options.method !== "POST" || !pattern.test(options.path)) return dispatch(options, handler);
    void hold().then(() => dispatch(options, handler));
    return true;
  });
}

async function serve(gitlab: FakeGitlab, dispatcher: Dispatcher, toolName: string) {
  const adapter = gitlabCi(
    { token: "glpat-E2eTokenThatMustNeverLeak0123", baseUrl: gitlab.baseUrl, projects: [project], dispatcher },
    {},
  );
  const start = observeStart(adapter.tools.find((candidate) => candidate.name === toolName)!);
  const server = cleanup.add(await startInProcessServer({ adapters: [{ name: "gitlab", adapter }] }));
  return { server, start };
}

describe("GitLab CI: a client that leaves during a start", () => {
  it("create_pipeline: the creation finishes, and the server cancels the pipeline it made", async () => {
    const gitlab = cleanup.add(startFakeGitlab(project));
    const upstream = heldAnswer();
    const { server, start } = await serve(
      gitlab,
      holdingPosts(gitlab, /\/pipeline$/, upstream.hold),
      "create_pipeline",
    );

    const client = callToolThenLeave(server.url, "create_pipeline", { project });
    await upstream.arrived;
    client.leave();
    expect(await client.answer).toMatchObject({ name: "AbortError" });
    await start.clientLeft;
    upstream.release();
    expect(await start.ended()).toBe("returned");

    expect(gitlab.requestsTo("POST", /\/pipeline$/)).toHaveLength(1);
    await expect.poll(() => gitlab.requestsTo("POST", /\/pipelines\/500001\/cancel$/).length).toBe(1);
  });

  it("retry_pipeline: the retry finishes, and the server cancels the retried pipeline", async () => {
    const gitlab = cleanup.add(startFakeGitlab(project));
    gitlab.pipelines.set(500_001, {
      id: 500_001,
      status: "failed",
      ref: "main",
      sha: "d6f0a1b2c3d4e5f60718293a4b5c6d7e8f901234",
      jobs: [{ id: 9001, name: "rspec", stage: "test", status: "failed" }],
      deployments: [],
    });
    const upstream = heldAnswer();
    const { server, start } = await serve(gitlab, holdingPosts(gitlab, /\/retry$/, upstream.hold), "retry_pipeline");

    const client = callToolThenLeave(server.url, "retry_pipeline", { project, pipelineId: 500_001 });
    await upstream.arrived;
    client.leave();
    expect(await client.answer).toMatchObject({ name: "AbortError" });
    await start.clientLeft;
    upstream.release();
    expect(await start.ended()).toBe("returned");

    expect(gitlab.requestsTo("POST", /\/pipelines\/500001\/retry$/)).toHaveLength(1);
    await expect.poll(() => gitlab.requestsTo("POST", /\/pipelines\/500001\/cancel$/).length).toBe(1);
  });
});
