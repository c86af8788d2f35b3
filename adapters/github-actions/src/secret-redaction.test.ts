import { withSecretRedaction } from "@jobtasks/core";
import { findSecretLeaks } from "@jobtasks/testkit";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { githubActions } from "./github-actions-adapter.js";
import {
  createTestContext,
  fixture,
  github,
  nock,
  runPath,
  runRef,
  testToken,
  workflowRun,
} from "./test-support/github-fixtures.js";

const attemptPath = `${runPath}/attempts/1`;

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending, "every arranged GitHub call was made").toEqual([]);
});

/** The adapter as its factory builds it: it declares its token and redacts nothing itself. */
const unwrapped = () => githubActions({ token: testToken, repositories: ["octo-org/octo-app"], requestRetries: 0 }, {});

/** What the same read gives (or throws, and logs) unwrapped, then as the server calls it. */
async function readBothWays(arrange: () => void) {
  const seen: unknown[] = [];
  for (const adapter of [unwrapped(), withSecretRedaction(unwrapped())]) {
    arrange();
    const context = createTestContext();
    seen.push(
      await adapter.doGetStatus(runRef, context).then(
        (snapshot) => ({ snapshot, logEntries: context.logEntries }),
        (error: unknown) => ({ error, logEntries: context.logEntries }),
      ),
    );
  }
  return { raw: seen[0], wrapped: seen[1] };
}

describe("the GitHub token, through the core's redaction", () => {
  it("declares the token, so the core can redact it", () => {
    const declared = unwrapped().secrets;
    expect(typeof declared === "function" ? declared() : declared).toEqual([testToken]);
  });

  it("leaves no part of it in an error built from GitHub's answer, even where the answer was cut", async () => {
    // GitHub's words are cut to 300 characters; this cut falls inside the token.
    const message = `${"x".repeat(280)} ${testToken} is not allowed`;
    const { raw, wrapped } = await readBothWays(() => github().get(attemptPath).reply(422, { message }));
    expect(findSecretLeaks(raw, [testToken.slice(0, 19)], "the unwrapped adapter's error")).not.toEqual([]);
    expect((wrapped as { error: Error }).error.message).toContain(" [redacted]");
    expect(findSecretLeaks(wrapped, [testToken, testToken.slice(0, 8)], "the wrapped adapter's error")).toEqual([]);
  });

  it("leaves it out of a failed step's log in the result", async () => {
    const { raw, wrapped } = await readBothWays(() => {
      github()
        .get(attemptPath)
        .reply(200, workflowRun({ status: "completed", conclusion: "failure" }));
      github().get(`${attemptPath}/jobs`).query({ per_page: 100 }).reply(200, fixture("attempt-jobs-failure.json"));
      github().get(`${runPath}/artifacts`).query({ per_page: 100 }).reply(200, fixture("artifacts.json"));
      github()
        .get("/repos/octo-org/octo-app/actions/jobs/25880011003/logs")
        .reply(200, `2026-11-20T10:01:30.0000000Z echo token\n2026-11-20T10:01:31.0000000Z ${testToken}\n`);
    });
    expect(findSecretLeaks(raw, [testToken], "the unwrapped adapter's snapshot")).not.toEqual([]);
    expect(findSecretLeaks(wrapped, [testToken], "the wrapped adapter's snapshot")).toEqual([]);
    expect(JSON.stringify(wrapped)).toContain("[redacted]");
  });
});
