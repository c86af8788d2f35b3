import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import nock from "nock";
import { withSecretRedaction } from "@jobtasks/core";
import { createTestContext } from "@jobtasks/testkit";
import type { UpstreamRequestEvent } from "../create-github-client.js";
import { githubActions, type GithubActionsOptions } from "../github-actions-adapter.js";
import type { RunRef } from "../run-ref.js";

/** Shared plumbing for this package's nock tests: fixtures, a test adapter, the API origin. */

export const apiOrigin = "https://api.github.com";
export const testToken = "ghp_TestTokenThatMustNeverLeak0123456789";
export const runPath = "/repos/octo-org/octo-app/actions/runs/9182736455";
export const runRef: RunRef = { owner: "octo-org", repo: "octo-app", runId: 9182736455, attempt: 1 };

export function fixtureText(name: string): string {
  return readFileSync(fileURLToPath(new URL(`../__fixtures__/${name}`, import.meta.url)), "utf8");
}

export function fixture<T = any>(name: string): T {
  return JSON.parse(fixtureText(name)) as T;
}

/** The workflow-run fixture with some fields changed (status, conclusion, attempt, ...). */
export function workflowRun(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...fixture("workflow-run.json"), ...overrides };
}

/**
 * An adapter as configured in production (requestRetries included) with short look-up waits, called as the
 * server calls it: through the core's redaction of its declared secrets.
 */
export function createTestAdapter(
  overrides: Partial<GithubActionsOptions> = {},
  requests: UpstreamRequestEvent[] = [],
) {
  return withSecretRedaction(
    githubActions(
      {
        token: testToken,
        repositories: ["octo-org/octo-app"],
        lookupPollMs: 5,
        watchCommitTimeoutMs: 200,
        dispatch: { returnRunDetails: true, correlationTimeoutMs: 200, correlationPollMs: 5 },
        onUpstreamRequest: (event) => requests.push(event),
        ...overrides,
      },
      {},
    ),
  );
}

export function github(): nock.Scope {
  return nock(apiOrigin);
}

export { createTestContext, nock };
