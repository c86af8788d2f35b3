import { afterEach, describe, expect, it } from "vitest";
import type { JsonValue } from "@jobtasks/core";
import { githubActions } from "@jobtasks/github-actions";
import { fakeOwner, fakeRepo, startFakeGithub } from "./support/fake-github-api.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { recordingClient } from "./support/recording-client.js";
import { expectAnsweredAsUnknown, refsOfEveryKind, sealRef } from "./support/sealed-refs.js";

/**
 * The GitHub Actions adapter's refSchema, through a real server: a task id whose ref is not a run attempt
 * this adapter could have sealed is an unknown task, and GitHub (a loopback fake) hears nothing of it.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function serve() {
  const github = cleanup.add(await startFakeGithub());
  const adapter = githubActions(
    {
      token: "ghp_RefSchemaTokenAbCdEf0123456789AbCdEf",
      baseUrl: github.url,
      workflows: [{ tool: "deploy_app", repository: `${fakeOwner}/${fakeRepo}`, workflow: "deploy.yml" }],
      requestRetries: 0,
    },
    {},
  );
  const server = cleanup.add(await startInProcessServer({ adapters: [{ name: "github", adapter }] }));
  const seal = (ref: JsonValue) => sealRef(server.secret, { instance: "github", tool: "deploy_app", ref });
  return { github, server, seal, client: recordingClient(server.url) };
}

const run = { owner: fakeOwner, repo: fakeRepo, runId: 9182799001, attempt: 1 };
const forged: Record<string, JsonValue> = {
  ...Object.fromEntries(Object.entries(refsOfEveryKind).filter(([kind]) => kind !== "github-actions")),
  "no attempt": { owner: fakeOwner, repo: fakeRepo, runId: 9182799001 },
  "attempt 0": { ...run, attempt: 0 },
  "a fractional attempt": { ...run, attempt: 1.5 },
  "a negative run id": { ...run, runId: -1 },
  "a run id with letters": { ...run, runId: "9182799001abc" },
  "a 21-digit run id": { ...run, runId: "1".repeat(21) },
  "a path in the owner": { ...run, owner: "../../orgs/octo-org" },
  "an owner of 101 characters": { ...run, owner: "o".repeat(101) },
  "an empty repo": { ...run, repo: "" },
  "an extra member": { ...run, url: "https://api.github.com/repos/octo-org/octo-app/actions/runs/1" },
};

describe("github-actions refSchema through the server", () => {
  it("answers a task id holding another adapter's ref, or a forged one, as unknown, and never calls GitHub", async () => {
    const { github, server, seal } = await serve();
    for (const [label, ref] of Object.entries(forged)) await expectAnsweredAsUnknown(server.url, seal(ref), label);
    expect(github.requests).toEqual([]);
  });

  it("opens the ref a dispatch seals, and a run attempt sealed by an earlier release", async () => {
    const { github, seal, client } = await serve();
    const runId = github.nextRunId;
    const created = await client.callTool("deploy_app", {});
    expect(created["status"]).toBe("working");
    expect((await client.get(created["taskId"] as string))["status"]).toBe("working");

    // { owner, repo, runId, attempt } is the only shape any release sealed.
    const reads = github.requestsTo("GET", new RegExp(`/runs/${runId}/attempts/1$`)).length;
    const earlier = await client.get(seal({ owner: fakeOwner, repo: fakeRepo, runId, attempt: 1 }));
    expect(earlier["status"]).toBe("working");
    expect(github.requestsTo("GET", new RegExp(`/runs/${runId}/attempts/1$`)).length).toBeGreaterThan(reads);
  });
});
