import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { OutcomeUnknownError, UpstreamError } from "@jobtasks/core";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createTestAdapter,
  createTestContext,
  github,
  nock,
  runPath,
  runRef,
  workflowRun,
} from "./test-support/github-fixtures.js";

/**
 * A connection that breaks before GitHub answers: octokit reports it as a RequestError with status 500 and
 * no response. That is no answer at all, so no message may name an HTTP status GitHub never sent.
 */

const dispatchPath = "/repos/octo-org/octo-app/actions/workflows/deploy.yml/dispatches";

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending, "every arranged GitHub call was made").toEqual([]);
});

const connectionReset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });

describe("a connection that broke before any answer", () => {
  it("makes a status read a retryable error with no HTTP status, saying GitHub did not answer", async () => {
    github().get(`${runPath}/attempts/1`).replyWithError(connectionReset);
    const adapter = createTestAdapter({ requestRetries: 0 });
    const error = await adapter.doGetStatus(runRef, createTestContext()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ isRetryable: true, httpStatus: undefined });
    expect((error as Error).message).not.toMatch(/HTTP 500|answered/);
    expect((error as Error).message).toMatch(/GitHub did not answer .*read run 9182736455 attempt 1.*ECONNRESET/);
  });

  it("says a dispatch that got no answer may have started, without naming an HTTP status", async () => {
    github().post(dispatchPath).replyWithError(connectionReset);
    const adapter = createTestAdapter({
      workflows: [{ tool: "run_deploy", repository: "octo-org/octo-app", workflow: "deploy.yml" }],
    });
    const tool = adapter.tools.find((candidate) => candidate.name === "run_deploy")!;
    const error = await tool
      .doStart(tool.inputSchema.parse({}), createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error).toMatchObject({ isRetryable: false });
    expect((error as Error).message).toMatch(
      /^GitHub gave no answer to the dispatch of workflow deploy\.yml: the run may have started anyway/,
    );
    expect((error as Error).message).not.toMatch(/HTTP 500/);
  });

  it("says a re-run that got no answer may have started, without naming an HTTP status", async () => {
    github()
      .get(runPath)
      .reply(200, workflowRun({ status: "completed", conclusion: "failure", run_attempt: 1 }));
    github().post(`${runPath}/rerun`).replyWithError(connectionReset);
    github().get(`${runPath}/attempts/2`).times(100).optionally().reply(404, { message: "Not Found" });
    const adapter = createTestAdapter({ watchCommitTimeoutMs: 50 });
    const tool = adapter.tools.find((candidate) => candidate.name === "rerun_run")!;
    const error = await tool
      .doStart(tool.inputSchema.parse({ runId: 9182736455 }), createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error).toMatchObject({ isRetryable: false });
    expect((error as Error).message).toMatch(
      /^GitHub gave no answer to the re-run of run 9182736455: it may have started anyway/,
    );
    expect((error as Error).message).not.toMatch(/HTTP 500/);
  });

  it("reads a socket the server destroyed unanswered (the real fetch, on loopback) as no answer", async () => {
    const server = createServer((request) => request.socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    nock.enableNetConnect("127.0.0.1");
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const error = await createTestAdapter({ requestRetries: 0, baseUrl })
        .doGetStatus(runRef, createTestContext())
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ isRetryable: true, httpStatus: undefined });
      expect((error as Error).message).toMatch(
        /^GitHub did not answer while trying to read run 9182736455 attempt 1 of octo-org\/octo-app \(the connection failed: [A-Z_]+\)$/,
      );
      expect((error as Error).message).not.toContain("127.0.0.1");
    } finally {
      nock.disableNetConnect();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("still names the status of a real 500 answer", async () => {
    github().get(`${runPath}/attempts/1`).reply(500, { message: "Server Error" });
    const error = await createTestAdapter({ requestRetries: 0 })
      .doGetStatus(runRef, createTestContext())
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ isRetryable: true, httpStatus: 500 });
    expect((error as Error).message).toMatch(/GitHub answered HTTP 500/);
  });
});
