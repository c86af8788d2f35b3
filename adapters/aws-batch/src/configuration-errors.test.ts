import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BatchClient } from "@aws-sdk/client-batch";
import { AdapterConfigError, UpstreamError } from "@jobtasks/core";
import nock from "nock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { awsBatch } from "./aws-batch-adapter.js";
import { blockRealNetwork, fastRetry, testCredentials, testRegion } from "./test-support/aws-test-clients.js";
import { testContext } from "./test-support/test-context.js";

const template = { tool: "render", description: "Render", jobQueue: "q", jobDefinition: "d" };

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

describe("a Region that cannot be resolved", () => {
  it("is an AdapterConfigError when the adapter is built, saying where a Region may come from", () => {
    const build = () => awsBatch({ credentials: testCredentials, templates: [template] }, environment());
    expect(build).toThrow(AdapterConfigError);
    expect(build).toThrow(/region: .*no AWS Region.*AWS_REGION.*AWS_DEFAULT_REGION.*profile/);
  });

  it("names the profile that lacks a region", () => {
    const path = configFile("[profile ops]\nrole_arn = arn:aws:iam::123456789012:role/ops\n");
    const build = () => awsBatch({ profile: "ops", templates: [template] }, environment({ AWS_CONFIG_FILE: path }));
    expect(build).toThrow(/profile "ops" in .* sets no region/);
  });

  it.each([
    ["the region option", { region: "eu-west-1" }, {}],
    ["AWS_REGION", {}, { AWS_REGION: "eu-west-1" }],
    ["AWS_DEFAULT_REGION", {}, { AWS_DEFAULT_REGION: "eu-west-1" }],
  ])("is found in %s", (_source, options, variables) => {
    expect(() => awsBatch({ credentials: testCredentials, templates: [template], ...options }, environment(variables))).not.toThrow();
  });

  it("is found in the named profile of the shared config file (AWS_PROFILE, AWS_CONFIG_FILE)", () => {
    const path = configFile("[default]\noutput = json\n\n[profile ops]\nregion = ap-southeast-2\n");
    expect(() => awsBatch({ templates: [template] }, environment({ AWS_CONFIG_FILE: path, AWS_PROFILE: "ops" }))).not.toThrow();
    expect(() => awsBatch({ templates: [template] }, environment({ AWS_CONFIG_FILE: path }))).toThrow(AdapterConfigError);
  });

  it("is not checked for an injected client, which carries its own Region", () => {
    const batchClient = new BatchClient({ region: testRegion, credentials: { ...testCredentials } });
    expect(() => awsBatch({ batchClient }, environment())).not.toThrow();
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
    new BatchClient({ region: (): Promise<string> => Promise.reject(new Error("Region is missing")), credentials: { ...testCredentials }, maxAttempts: 1 });
  const credentialless = () =>
    new BatchClient({
      region: testRegion,
      credentials: () => Promise.reject(Object.assign(new Error("Could not load credentials from any providers"), { name: "CredentialsProviderError" })),
      maxAttempts: 1,
    });

  // A Region does not appear by itself; credentials may (a renewed SSO session, an instance role that
  // answers again), so the server keeps such tasks waiting within its outage budget.
  it.each([
    ["a missing Region", regionless, /no AWS Region/, false],
    ["missing credentials", credentialless, /no AWS credentials/, true],
  ])("makes %s an error that says what is missing, not 'may have reached AWS'", async (_case, client, message, retryable) => {
    const adapter = awsBatch({ batchClient: client(), retry: fastRetry, describeBatchWindowMs: 1 });
    const error = await adapter.doGetStatus({ jobId: "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f" }, testContext()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).isRetryable).toBe(retryable);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain("network error");
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
    const error = await tool?.doStart(tool.inputSchema.parse({}), testContext()).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ isRetryable: false });
    expect((error as Error).message).toMatch(/SubmitJob could not be sent: no AWS Region/);
    expect(sent).toEqual(["SubmitJobCommand"]);
  });
});
