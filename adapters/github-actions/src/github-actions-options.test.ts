import { generateKeyPairSync } from "node:crypto";
import { AdapterConfigError, withSecretRedaction } from "@jobtasks/core";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { adapterDefinition } from "./adapter-definition.js";
import { githubActions, type GithubActionsOptions } from "./github-actions-adapter.js";
import { createTestContext, nock, runRef, testToken, workflowRun } from "./test-support/github-fixtures.js";

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending, "every arranged GitHub call was made").toEqual([]);
});

function configError(options: GithubActionsOptions, environment: Record<string, string> = {}): AdapterConfigError {
  try {
    githubActions(options, environment);
  } catch (error) {
    expect(error).toBeInstanceOf(AdapterConfigError);
    return error as AdapterConfigError;
  }
  throw new Error("expected an AdapterConfigError");
}

describe("configuration errors name the option", () => {
  it("asks for a token, naming the option and GITHUB_TOKEN", () => {
    const error = configError({ repositories: ["octo-org/octo-app"] });
    expect(error.option).toBe("token");
    expect(error.message).toContain("GITHUB_TOKEN");
  });

  it("asks for at least one repository", () => {
    expect(configError({ token: testToken }).option).toBe("repositories");
  });

  it("points at a malformed repository inside workflows", () => {
    const error = configError({
      token: testToken,
      workflows: [{ tool: "run_ci", repository: "not-a-repo", workflow: "ci.yml" }],
    });
    expect(error.option).toBe("workflows[0].repository");
  });

  it("refuses a tool name used twice", () => {
    const error = configError({
      token: testToken,
      toolPrefix: "ci_",
      workflows: [{ tool: "ci_watch_run", repository: "octo-org/octo-app", workflow: "ci.yml" }],
    });
    expect(error.option).toBe("workflows[0].tool");
  });

  it("refuses an unknown option (a typo would otherwise be silently ignored)", () => {
    expect(
      configError({ token: testToken, repositories: ["octo-org/octo-app"], pollIntervalMS: 5 } as GithubActionsOptions)
        .option,
    ).toBe("options");
  });

  it("names each missing GitHub App field and its environment variable", () => {
    const error = configError({ app: { appId: 12345, installationId: 678 }, repositories: ["octo-org/octo-app"] });
    expect(error.option).toBe("app.privateKey");
    expect(error.message).toContain("GITHUB_APP_PRIVATE_KEY");
  });

  it("never puts the token in a configuration error", () => {
    const error = configError({ token: testToken, repositories: ["bad"] });
    expect(error.message).not.toContain(testToken);
  });
});

describe("credentials and endpoints", () => {
  it("takes the token from GITHUB_TOKEN and the base URL from GITHUB_API_URL (GitHub Enterprise Server)", async () => {
    nock("https://ghe.example.com")
      .get("/api/v3/repos/octo-org/octo-app/actions/runs/9182736455/attempts/1")
      .matchHeader("authorization", `token ${testToken}`)
      .reply(200, workflowRun({ status: "queued" }));
    const adapter = githubActions(
      { repositories: ["octo-org/octo-app"] },
      { GITHUB_TOKEN: testToken, GITHUB_API_URL: "https://ghe.example.com/api/v3" },
    );
    expect((await adapter.doGetStatus(runRef, createTestContext())).status).toBe("working");
  });

  it("authenticates as a GitHub App installation", async () => {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const pem = privateKey.export({ type: "pkcs1", format: "pem" }).toString();
    nock("https://api.github.com")
      .post("/app/installations/678/access_tokens")
      .matchHeader("authorization", /^bearer /i)
      .reply(201, {
        token: "ghs_InstallationToken000000000000000000",
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      });
    nock("https://api.github.com")
      .get("/repos/octo-org/octo-app/actions/runs/9182736455/attempts/1")
      .matchHeader("authorization", "token ghs_InstallationToken000000000000000000")
      .reply(200, workflowRun({ status: "queued" }));
    const adapter = githubActions(
      { app: { appId: 12345, privateKey: pem, installationId: 678 }, repositories: ["octo-org/octo-app"] },
      {},
    );
    expect((await adapter.doGetStatus(runRef, createTestContext())).status).toBe("working");
  });

  it("declares the installation tokens it was given, so the core redacts them from upstream text too", async () => {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const pem = privateKey.export({ type: "pkcs1", format: "pem" }).toString();
    const installationToken = "ghs_InstallationTokenEchoedBack0000000000";
    nock("https://api.github.com")
      .post("/app/installations/678/access_tokens")
      .reply(201, { token: installationToken, expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    // An upstream answer that quotes the credential back (a proxy's error page, say).
    nock("https://api.github.com")
      .get("/repos/octo-org/octo-app/actions/runs/9182736455/attempts/1")
      .reply(400, { message: `bad request for token ${installationToken}` });
    const adapter = withSecretRedaction(
      githubActions(
        { app: { appId: 12345, privateKey: pem, installationId: 678 }, repositories: ["octo-org/octo-app"] },
        {},
      ),
    );
    const failure = await adapter.doGetStatus(runRef, createTestContext()).catch((error: unknown) => error);
    expect((failure as Error).message).toContain("bad request for token");
    expect((failure as Error).message).not.toContain(installationToken);
    // The key, the App's signed JWT and the installation token it bought.
    const declared = typeof adapter.secrets === "function" ? adapter.secrets() : [];
    expect(declared[0]).toBe(pem);
    expect(declared).toContain(installationToken);
  });
});

describe("adapterDefinition", () => {
  it("builds the adapter the jobtasks command asks for from a config block", () => {
    const options = adapterDefinition.optionsSchema.parse({
      token: testToken,
      toolPrefix: "ci_",
      workflows: [{ tool: "ci_deploy", repository: "octo-org/octo-app", workflow: "deploy.yml" }],
      allowedWorkflows: ["octo-org/octo-app/*"],
    });
    const adapter = adapterDefinition.create(options, {});
    expect(adapterDefinition.kind).toBe("github-actions");
    expect(adapter.kind).toBe("github-actions");
    expect(adapter.tools.map((tool) => tool.name)).toEqual([
      "ci_deploy",
      "ci_run_workflow",
      "ci_watch_run",
      "ci_rerun_run",
    ]);
    expect(adapter.pollIntervalMs).toBe(10_000);
    expect(adapter.retentionMs).toBe(90 * 24 * 3_600_000);
    expect(adapter.tools.every((tool) => tool.synchronousWaitMs === undefined)).toBe(true);
  });

  it("lets every tool answer clients without the tasks extension when synchronousWaitMs is set", () => {
    const adapter = adapterDefinition.create(
      adapterDefinition.optionsSchema.parse({
        token: testToken,
        repositories: ["octo-org/octo-app"],
        synchronousWaitMs: 30_000,
      }),
      {},
    );
    expect(adapter.tools.map((tool) => tool.synchronousWaitMs)).toEqual([30_000, 30_000]);
  });

  it("refuses a log time budget that would not fit in the server's 30 s status-read deadline", () => {
    const error = configError({ token: testToken, repositories: ["octo-org/octo-app"], logs: { maxReadMs: 30_000 } });
    expect(error.option).toBe("logs.maxReadMs");
  });

  it("reports schema errors with the path of the field", () => {
    const result = adapterDefinition.optionsSchema.safeParse({ workflows: [{ tool: "x", repository: "a/b" }] });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["workflows", 0, "workflow"]);
  });
});
