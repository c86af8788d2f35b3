import { readFileSync } from "node:fs";
import { withSecretRedaction } from "@jobtasks/core";
import { MockAgent, type Interceptable } from "undici";
import { gitlabCi, type GitlabCiOptions } from "../gitlab-ci-adapter.js";

/** A GitLab REST API v4 behind an undici MockAgent, with answers from __fixtures__. */

export const testToken = "glpat-TESTTOKENmustNeverLeak01";
export const origin = "https://gitlab.example.com";
export const baseUrl = `${origin}/api/v4`;
export const project = "acme/shop";
export const projectPath = `/api/v4/projects/${encodeURIComponent(project)}`;

const fixtures = new URL("../__fixtures__/", import.meta.url);

export function fixture<T = any>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, fixtures), "utf8")) as T;
}

export function fixtureText(name: string): string {
  return readFileSync(new URL(name, fixtures), "utf8");
}

/** The pipeline fixture with some fields changed. */
export function pipeline(overrides: Record<string, unknown>): Record<string, unknown> {
  return { ...fixture("pipeline.json"), ...overrides };
}

/** `inner` wrapped in `levels` arrays: JSON nested `levels` deep. */
export function nestedArrays(levels: number, inner: unknown): unknown {
  let value = inner;
  for (let level = 0; level < levels; level += 1) value = [value];
  return value;
}

export const json = { headers: { "content-type": "application/json" } };

/** Matches a path whatever its query string; `query` checks the query when given. */
export function at(path: string, query?: (parameters: URLSearchParams) => boolean): (requested: string) => boolean {
  return (requested) => {
    const [pathname, search = ""] = requested.split("?");
    return pathname === path && (query === undefined || query(new URLSearchParams(search)));
  };
}

export interface MockGitlab {
  agent: MockAgent;
  gitlab: Interceptable;
  /** Every request body sent to a path, parsed. */
  bodiesSentTo(path: string): unknown[];
}

export function createMockGitlab(): MockGitlab {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const bodies = new Map<string, unknown[]>();
  return {
    agent,
    gitlab: agent.get(origin),
    bodiesSentTo: (path) => bodies.get(path) ?? [],
  };
}

/** Record the body of each POST to `path` and answer it. */
export function recordPost(mock: MockGitlab, path: string, status: number, answer: unknown, sent: unknown[]): void {
  mock.gitlab.intercept({ path: at(path), method: "POST" }).reply(
    status,
    (options) => {
      sent.push(typeof options.body === "string" && options.body !== "" ? JSON.parse(options.body) : undefined);
      return answer as object;
    },
    json,
  );
}

/** The adapter as the server calls it: through the core's redaction of its declared secrets. */
export function createTestAdapter(mock: MockGitlab, options: Partial<GitlabCiOptions> = {}) {
  return withSecretRedaction(
    gitlabCi({ token: testToken, baseUrl, projects: [project, "278964"], dispatcher: mock.agent, ...options }, {}),
  );
}
