import { withSecretRedaction } from "@jobtasks/core";
import { createTestContext, findSecretLeaks } from "@jobtasks/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { gitlabCi } from "./gitlab-ci-adapter.js";
import {
  at,
  baseUrl,
  createMockGitlab,
  fixture,
  json,
  pipeline,
  project,
  projectPath,
  testToken,
} from "./test-support/mock-gitlab.js";

// A fresh GitLab per test; every answer a test arranged must have been asked for.
let mock = createMockGitlab();
beforeEach(() => {
  mock = createMockGitlab();
});
afterEach(() => mock.agent.assertNoPendingInterceptors());

const pipelineId = 1284711;
const path = `${projectPath}/pipelines/${pipelineId}`;

/** The adapter as its factory builds it: it declares its token and redacts nothing itself. */
const unwrapped = () => gitlabCi({ token: testToken, baseUrl, projects: [project], dispatcher: mock.agent }, {});

async function readTwice(arrange: () => void) {
  const seen: unknown[] = [];
  for (const adapter of [unwrapped(), withSecretRedaction(unwrapped())]) {
    arrange();
    const context = createTestContext();
    seen.push(
      await adapter.doGetStatus({ project, pipelineId }, context).then(
        (snapshot) => ({ snapshot, logEntries: context.logEntries }),
        (error: unknown) => ({ error, logEntries: context.logEntries }),
      ),
    );
  }
  return { raw: seen[0], wrapped: seen[1] };
}

describe("the GitLab token, through the core's redaction", () => {
  it("declares the token, so the core can redact it", () => {
    expect(unwrapped().secrets).toEqual([testToken]);
  });

  it("leaves no part of it in an error built from GitLab's answer, even where the answer was cut", async () => {
    // GitLab's words are cut to 300 characters; this cut falls inside the token.
    const message = `${"x".repeat(290)} ${testToken} was refused`;
    const { raw, wrapped } = await readTwice(() =>
      mock.gitlab.intercept({ path: at(path), method: "GET" }).reply(400, { message }, json),
    );
    expect(String((raw as { error: Error }).error.message)).toContain(testToken.slice(0, 9));
    expect((wrapped as { error: Error }).error.message).toMatch(/x \[redacted\]$/);
    expect(findSecretLeaks(wrapped, [testToken], "the wrapped adapter's answer")).toEqual([]);
  });

  it("leaves it out of a failed job's trace in the result", async () => {
    const { raw, wrapped } = await readTwice(() => {
      mock.gitlab
        .intercept({ path: at(path), method: "GET" })
        .reply(200, pipeline({ status: "failed", finished_at: "2026-11-30T09:17:02.000Z" }), json);
      mock.gitlab.intercept({ path: at(`${path}/jobs`), method: "GET" }).reply(200, fixture("jobs-failed.json"), json);
      mock.gitlab
        .intercept({ path: at(`${projectPath}/jobs/7710003/trace`), method: "GET" })
        .reply(200, `$ echo $GITLAB_TOKEN\n${testToken}\nERROR: Job failed: exit code 1\n`);
      mock.gitlab
        .intercept({ path: at(`${projectPath}/jobs/7710002/trace`), method: "GET" })
        .reply(200, "3 problems\n");
    });
    expect(findSecretLeaks(raw, [testToken], "the unwrapped adapter's snapshot")).not.toEqual([]);
    expect(findSecretLeaks(wrapped, [testToken], "the wrapped adapter's snapshot")).toEqual([]);
    expect(JSON.stringify(wrapped)).toContain("[redacted]\\nERROR: Job failed");
  });
});
