import { withSecretRedaction } from "@jobtasks/core";
import { createTestContext, findSecretLeaks } from "@jobtasks/testkit";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { awsBatch } from "./aws-batch-adapter.js";
import {
  batchOrigin,
  blockRealNetwork,
  fastRetry,
  logsOrigin,
  testCredentials,
  testRegion,
} from "./test-support/aws-test-clients.js";
import { readFixture } from "./test-support/fixtures.js";

beforeEach(blockRealNetwork);
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

const secretKey = testCredentials.secretAccessKey;

/** The adapter as its factory builds it: it declares its keys and redacts nothing itself. */
const unwrapped = () =>
  awsBatch(
    { region: testRegion, credentials: testCredentials, logs: {}, retry: fastRetry, describeBatchWindowMs: 5 },
    {},
  );

describe("the AWS keys, through the core's redaction", () => {
  it("declares the configured keys and those the SDK reads from the environment", () => {
    const adapter = awsBatch(
      { region: testRegion },
      { AWS_SECRET_ACCESS_KEY: "env/secret/key/0123456789", AWS_SESSION_TOKEN: "" },
    );
    expect(adapter.secrets).toEqual(["env/secret/key/0123456789"]);
    expect(unwrapped().secrets).toEqual([testCredentials.accessKeyId, secretKey]);
  });

  it("leaves the secret key out of the error every coalesced status read gets from one DescribeJobs answer", async () => {
    const readTwoJobs = async (adapter: ReturnType<typeof awsBatch>) => {
      nock(batchOrigin)
        .post("/v1/describejobs")
        .reply(
          403,
          { __type: "AccessDeniedException", message: `signed with ${secretKey}: refused` },
          { "x-amzn-errortype": "AccessDeniedException" },
        );
      const context = createTestContext();
      // Both reads go out in one DescribeJobs call (describeBatchWindowMs) and share its failure.
      const errors = await Promise.all(
        ["11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"].map((jobId) =>
          adapter.doGetStatus({ jobId }, context).catch((error: unknown) => error),
        ),
      );
      await adapter.close?.();
      return { errors, logEntries: context.logEntries };
    };
    const raw = await readTwoJobs(unwrapped());
    const wrapped = await readTwoJobs(withSecretRedaction(unwrapped()));
    expect(findSecretLeaks(raw, [secretKey], "the unwrapped adapter's errors")).not.toEqual([]);
    expect(findSecretLeaks(wrapped, [secretKey], "the wrapped adapter's errors")).toEqual([]);
    expect((wrapped.errors[1] as Error).message).toContain("signed with [redacted]: refused");
  });

  it("leaves it out of a failed job's log tail in the result", async () => {
    const read = async (adapter: ReturnType<typeof awsBatch>) => {
      nock(batchOrigin).post("/v1/describejobs").reply(200, readFixture("describe-jobs-failed.json"));
      nock(logsOrigin)
        .post("/")
        .reply(200, { events: [{ timestamp: 1, message: `export AWS_SECRET_ACCESS_KEY=${secretKey}` }] });
      const snapshot = await adapter.doGetStatus(
        { jobId: "2b3c4d5e-1111-4111-8111-111111111111" },
        createTestContext(),
      );
      await adapter.close?.();
      return snapshot;
    };
    const raw = await read(unwrapped());
    const wrapped = await read(withSecretRedaction(unwrapped()));
    expect(findSecretLeaks(raw, [secretKey], "the unwrapped adapter's snapshot")).not.toEqual([]);
    expect(findSecretLeaks(wrapped, [secretKey], "the wrapped adapter's snapshot")).toEqual([]);
    expect(wrapped.result?.structuredContent).toMatchObject({ logTail: "export AWS_SECRET_ACCESS_KEY=[redacted]" });
  });
});
