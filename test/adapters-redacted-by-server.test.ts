import { describe, expect, it } from "vitest";
import { awsBatch } from "@jobtasks/aws-batch";
import { UpstreamError, type AnyJobAdapter } from "@jobtasks/core";
import { demoAdapter } from "@jobtasks/demo";
import { githubActions } from "@jobtasks/github-actions";
import { gitlabCi } from "@jobtasks/gitlab-ci";
import { restAdapter } from "@jobtasks/rest";
import { ToolRegistry } from "@jobtasks/server";
import { createTestContext, findSecretLeaks } from "@jobtasks/testkit";

/**
 * Adapters redact nothing themselves: they declare their credentials, and the server calls them through the
 * core's withSecretRedaction. These tests fail if the server registers an adapter unwrapped, or an adapter
 * stops declaring what it holds.
 */

const token = "credential-ThatMustNeverLeak-0123456789";

const adapters: Array<[string, () => AnyJobAdapter]> = [
  // The demo's credential is the password of its URL, sent as Basic authentication.
  ["demo", () => demoAdapter({ baseUrl: `http://robot:${token}@127.0.0.1:1` })],
  ["github-actions", () => githubActions({ token, repositories: ["octo-org/octo-app"] }, {})],
  ["gitlab-ci", () => gitlabCi({ token, projects: ["acme/shop"] }, {})],
  [
    "aws-batch",
    () =>
      awsBatch({ region: "us-east-1", credentials: { accessKeyId: "AKIATESTFAKEKEY00001", secretAccessKey: token } }),
  ],
  [
    "rest",
    () =>
      restAdapter(
        {
          baseUrl: "https://jobs.example.test",
          auth: { type: "bearer", tokenEnv: "JOBS_TOKEN" },
          tools: [{ name: "run_job", description: "Run a job.", submit: { url: "/jobs" } }],
          reference: { path: "id" },
          status: { url: "/jobs/{{job.id}}", field: "state", working: ["running"], completed: ["done"] },
        },
        { environment: { JOBS_TOKEN: token } },
      ),
  ],
];

function declared(adapter: AnyJobAdapter): readonly string[] {
  const secrets = adapter.secrets;
  return typeof secrets === "function" ? secrets.call(adapter) : (secrets ?? []);
}

describe.each(adapters)("%s, as the server registers it", (_kind, build) => {
  it("declares the credential it was configured with", () => {
    expect(declared(build())).toContain(token);
  });

  it("is called through the redaction of what it declares, every tool included", async () => {
    const adapter = build();
    const registry = new ToolRegistry([{ name: "under-test", adapter }]);
    const registered = registry.adapter("under-test")!;
    expect(registered).not.toBe(adapter);
    const rawStarts = new Set(adapter.tools.map((tool) => tool.doStart));
    expect(registry.tools.filter(({ tool }) => rawStarts.has(tool.doStart))).toEqual([]);

    // The adapter's own methods, made to leak: what the server gets from them carries no credential.
    adapter.doGetStatus = async (_ref, context) => {
      context.logger.warn({ header: `Bearer ${token}` }, `read with ${token}`);
      throw new UpstreamError(`refused ${token}`, { cause: new Error(`inner ${encodeURIComponent(token)}`) });
    };
    for (const tool of adapter.tools) {
      tool.doStart = async () => ({ ref: {}, snapshot: { status: "working", rawStatus: token, message: token } });
    }
    const context = createTestContext();
    const error = await registered.doGetStatus({}, context).catch((caught: unknown) => caught);
    const started = await registry.tools[0]!.tool.doStart({}, context);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(findSecretLeaks([error, started, context.logEntries], [token], "what the server got")).toEqual([]);
  });
});
