import { afterEach, describe, expect, it } from "vitest";
import { githubActions } from "@jobtasks/github-actions";
import { fakeOwner, fakeRepo, startFakeGithub } from "./support/fake-github-api.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { recordingClient } from "./support/recording-client.js";

/**
 * A task's times as the agent sees them when it follows a GitHub run that finished before the task
 * existed: GitHub's last change is older than the task, and the task must not claim a change before it
 * was created. The server shapes every adapter's task, so this holds for any adapter, not just this one.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe("watch_run on a run that finished an hour before the watch", () => {
  it("reports lastUpdatedAt no earlier than createdAt, in tools/call and tasks/get", async () => {
    const github = cleanup.add(await startFakeGithub());
    const adapter = githubActions(
      {
        token: "ghp_E2eTokenWatchFinished0123456789AbCd",
        baseUrl: github.url,
        repositories: [`${fakeOwner}/${fakeRepo}`],
        requestRetries: 0,
      },
      {},
    );
    const server = cleanup.add(await startInProcessServer({ adapters: [{ name: "github", adapter }] }));
    const client = recordingClient(server.url);

    const hourAgo = new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d+Z$/, "Z");
    const startedAt = new Date(Date.now() - 3_700_000).toISOString().replace(/\.\d+Z$/, "Z");
    const runId = 9_300_000_777;
    github.runs.set(runId, {
      id: runId,
      name: "Nightly",
      path: ".github/workflows/nightly.yml",
      headSha: "6dcb09b5b57875f334f61aebed695e2e4193db5e",
      headBranch: "main",
      event: "schedule",
      createdAt: startedAt,
      attempts: [
        {
          status: "completed",
          conclusion: "success",
          updatedAt: hourAgo,
          runStartedAt: startedAt,
          jobs: [],
          pendingDeployments: [],
        },
      ],
      reviews: [],
      annotations: new Map(),
      artifacts: [],
    });

    const created = await client.callTool("watch_run", { runId });
    expect(created["status"]).toBe("completed");
    const task = await client.get(created["taskId"] as string);
    expect(task["status"]).toBe("completed");
    for (const answer of [created, task]) {
      expect(Date.parse(answer["lastUpdatedAt"])).toBeGreaterThanOrEqual(Date.parse(answer["createdAt"]));
    }
    // The run's own times are still in the result.
    expect(task["result"]["structuredContent"]["durationSeconds"]).toBe(100);
  });
});
