import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BatchClient } from "@aws-sdk/client-batch";
import { AdapterConfigError, UpstreamError } from "@jobtasks/core";
import nock from "nock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { awsBatch } from "./aws-batch-adapter.js";
import { blockRealNetwork, fastRetry, testCredentials, testRegion } from "./test-support/aws-test-clients.js";
import { createTestContext } from "@jobtasks/testkit";

const template = { tool: "render", description: "Render", jobQueue: "q", jobDefinition: "d" };
const jobId = "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f";

// Every home and config file of this test file lives under one temporary folder, removed when the file is done.
let temporaryRoot: string;
beforeAll(() => {
  temporaryRoot = mkdtempSync(join(tmpdir(), "jobtasks-aws-"));
});
afterAll(() => {
  if (temporaryRoot) rmSync(temporaryRoot, { recursive: true, force: true });
});

/** An empty home directory, so the machine's own ~/.aws is never read. */
function emptyHome(): string {
  return mkdtempSync(join(temporaryRoot, "home-"));
}

/** An environment whose only AWS setting is what the test gives; HOME points at an empty directory. */
function environment(changes: Record<string, string> = {}): Record<string, string> {
  return { HOME: emptyHome(), ...changes };
}

function configFile(text: string): string {
  const path = join(mkdtempSync(join(temporaryRoot, "config-")), "config");
  writeFileSync(path, text);
  return path;
}

describe("the Region when the adapter is built", () => {
  // On EC2 the SDK finds the Region in instance metadata, which only a call can ask; a refusal here would
  // block hosts that work. A Region missing everywhere is reported by the first call instead (below).
  it("does not refuse a build where no static source has a Region", () => {
    expect(() => awsBatch({ credentials: testCredentials, templates: [template] }, environment())).not.toThrow();
  });

  it("uses the Region the SDK finds in instance metadata (IMDS) when nothing else sets one", async () => {
    const metadata = createServer((request, response) => {
      if (request.method === "PUT" && request.url === "/latest/api/token") return void response.end("token");
      if (request.url === "/latest/meta-data/placement/region") return void response.end("eu-central-1");
      response.statusCode = 404;
      response.end();
    });
    await new Promise<void>((resolve) => metadata.listen(0, "127.0.0.1", resolve));
    const { port } = metadata.address() as AddressInfo;
    const home = emptyHome();
    for (const name of [
      "AWS_REGION",
      "AWS_DEFAULT_REGION",
      "AWS_PROFILE",
      "AWS_CONFIG_FILE",
      "AWS_SHARED_CREDENTIALS_FILE",
      "AWS_EC2_METADATA_DISABLED",
    ]) {
      vi.stubEnv(name, undefined);
    }
    vi.stubEnv("HOME", home);
    vi.stubEnv("AWS_EC2_METADATA_SERVICE_ENDPOINT", `http://127.0.0.1:${port}`);
    blockRealNetwork();
    try {
      nock("https://batch.eu-central-1.amazonaws.com")
        .post("/v1/describejobs")
        .reply(200, { jobs: [{ jobId, jobName: "n", status: "RUNNING" }] });
      const adapter = awsBatch(
        { credentials: testCredentials, templates: [template], retry: fastRetry, describeBatchWindowMs: 1 },
        environment(),
      );
      const snapshot = await adapter.doGetStatus({ jobId }, createTestContext());
      expect(snapshot).toMatchObject({ status: "working", rawStatus: "RUNNING" });
      await adapter.close?.();
    } finally {
      vi.unstubAllEnvs();
      nock.cleanAll();
      nock.enableNetConnect();
      metadata.close();
    }
  });

  it.each([
    ["AWS_REGION", { AWS_REGION: "eu-west-1 " }],
    ["AWS_DEFAULT_REGION", { AWS_DEFAULT_REGION: "eu west 1" }],
  ])(
    "refuses an invalid Region in %s, naming the variable, instead of failing every call as a lost answer",
    (variable, variables) => {
      const build = () => awsBatch({ credentials: testCredentials, templates: [template] }, environment(variables));
      expect(build).toThrow(AdapterConfigError);
      expect(build).toThrow(new RegExp(`region: .*${variable}.* not an AWS Region`));
    },
  );

  it("refuses an invalid Region in the selected profile, naming the profile and file", () => {
    const path = configFile("[profile ops]\nregion = eu-west-1x!\n");
    const build = () => awsBatch({ profile: "ops", templates: [template] }, environment({ AWS_CONFIG_FILE: path }));
    expect(build).toThrow(/region: .*profile "ops" in .* not an AWS Region/);
  });

  it.each([
    ["the region option", { region: "eu-west-1" }, {}],
    ["AWS_REGION", {}, { AWS_REGION: "eu-west-1" }],
    ["AWS_DEFAULT_REGION", {}, { AWS_DEFAULT_REGION: "eu-west-1" }],
  ])("accepts a valid Region in %s", (_source, options, variables) => {
    expect(() =>
      awsBatch({ credentials: testCredentials, templates: [template], ...options }, environment(variables)),
    ).not.toThrow();
  });

  it("does not check an injected client, which carries its own Region", () => {
    const batchClient = new BatchClient({ region: testRegion, credentials: { ...testCredentials } });
    expect(() => awsBatch({ batchClient }, environment({ AWS_REGION: "bad region" }))).not.toThrow();
  });
});

describe("configuration and credentials errors at call time", () => {
  beforeEach(blockRealNetwork);
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  /** A client as the SDK builds it when the Region (or credentials) cannot be found: it fails before sending. */
  const regionless = () =>
    new BatchClient({
      region: (): Promise<string> => Promise.reject(new Error("Region is missing")),
      credentials: { ...testCredentials },
      maxAttempts: 1,
    });
  const credentialless = () =>
    new BatchClient({
      region: testRegion,
      credentials: () =>
        Promise.reject(
          Object.assign(new Error("Could not load credentials from any providers"), {
            name: "CredentialsProviderError",
          }),
        ),
      maxAttempts: 1,
    });

  // A Region does not appear by itself; credentials may (a renewed SSO session, an instance role that
  // answers again), so the server keeps such tasks waiting within its outage budget.
  it.each([
    ["a missing Region", regionless, /no AWS Region/, false],
    ["missing credentials", credentialless, /no AWS credentials/, true],
  ])(
    "makes %s an error that says what is missing, not 'may have reached AWS'",
    async (_case, client, message, retryable) => {
      const adapter = awsBatch({ batchClient: client(), retry: fastRetry, describeBatchWindowMs: 1 });
      const error = await adapter
        .doGetStatus({ jobId: "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f" }, createTestContext())
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UpstreamError);
      expect((error as UpstreamError).isRetryable).toBe(retryable);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain("network error");
    },
  );

  it("makes a Region the SDK does not accept a configuration error, not a lost answer", async () => {
    const badRegion = new BatchClient({ region: "eu-west-1 ", credentials: { ...testCredentials }, maxAttempts: 1 });
    const adapter = awsBatch({ batchClient: badRegion, retry: fastRetry, describeBatchWindowMs: 1 });
    const error = await adapter.doGetStatus({ jobId }, createTestContext()).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ isRetryable: false });
    expect((error as Error).message).toMatch(/could not be sent: the AWS Region is not valid/);
  });

  it("does not look for a duplicate or retry a submit that could not be sent for want of a Region", async () => {
    const batchClient = regionless();
    const sent: string[] = [];
    const send = batchClient.send.bind(batchClient) as (command: object, options?: object) => Promise<unknown>;
    (batchClient as unknown as { send: typeof send }).send = (command, options) => {
      sent.push(command.constructor.name);
      return send(command, options);
    };
    const adapter = awsBatch({ batchClient, templates: [template], retry: fastRetry, duplicateCheckDelayMs: 0 });
    const tool = adapter.tools[0];
    const error = await tool
      ?.doStart(tool.inputSchema.parse({}), createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ isRetryable: false });
    expect((error as Error).message).toMatch(/SubmitJob could not be sent: no AWS Region/);
    expect(sent).toEqual(["SubmitJobCommand"]);
  });
});
