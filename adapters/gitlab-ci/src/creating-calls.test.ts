import { OutcomeUnknownError, UpstreamError, type JobTool } from "@jobtasks/core";
import { createTestContext } from "@jobtasks/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PipelineRef } from "./pipeline-ref.js";
import {
  at,
  createMockGitlab,
  createTestAdapter,
  fixture,
  json,
  nestedArrays,
  origin,
  pipeline,
  project,
  projectPath,
} from "./test-support/mock-gitlab.js";

// A fresh GitLab per test; every answer a test arranged must have been asked for.
let mock = createMockGitlab();
beforeEach(() => {
  mock = createMockGitlab();
});
afterEach(() => mock.agent.assertNoPendingInterceptors());

const createPath = `${projectPath}/pipeline`;
const pipelinePath = `${projectPath}/pipelines/1284711`;

function tool(name: string, options = {}): JobTool<PipelineRef> {
  return createTestAdapter(mock, options).tools.find((candidate) => candidate.name === name)!;
}

async function start(name: string, args: unknown, options = {}, context = createTestContext()) {
  const chosen = tool(name, options);
  return chosen.doStart(chosen.inputSchema.parse(args), context);
}

function connectionError(code: string): Error {
  return Object.assign(new Error(`${code} while talking to ${origin}`), { code });
}

async function failureOf(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (error: unknown) => error as Error,
  );
}

/** The failure of a create_pipeline whose POST `arrange` answers. */
async function createFailure(arrange: () => void, options = {}): Promise<Error> {
  arrange();
  return failureOf(start("create_pipeline", { project, ref: "release/2.4" }, options));
}

function expectPipelineMayExist(error: Error): void {
  expect(error).toBeInstanceOf(OutcomeUnknownError);
  expect((error as OutcomeUnknownError).isRetryable).toBe(false);
  expect(error.message).toMatch(/Creating a pipeline on release\/2\.4 got no usable answer/);
  expect(error.message).toMatch(/may have been created anyway/);
  expect(error.message).toContain("watch_pipeline with project acme/shop and ref release/2.4");
  expect(error.message).not.toContain("gitlab.example.com");
}

describe("create_pipeline when GitLab's answer is lost", () => {
  it("a dropped connection after sending says the pipeline may exist and where to look, not to try again", async () => {
    const error = await createFailure(() =>
      mock.gitlab.intercept({ path: at(createPath), method: "POST" }).replyWithError(connectionError("ECONNRESET")),
    );
    expectPipelineMayExist(error);
    expect(error.message).toContain("dropped the connection");
  });

  it("a POST that times out says the pipeline may exist", async () => {
    const error = await createFailure(
      () =>
        mock.gitlab
          .intercept({ path: at(createPath), method: "POST" })
          .reply(201, pipeline({ id: 1284999 }), json)
          .delay(2_000),
      { requestTimeoutMs: 50 },
    );
    expectPipelineMayExist(error);
    expect(error.message).toContain("did not answer within 50 ms");
  });

  it("a 2xx that is not JSON, or not a pipeline, says the pipeline may exist", async () => {
    expectPipelineMayExist(
      await createFailure(() =>
        mock.gitlab.intercept({ path: at(createPath), method: "POST" }).reply(201, "<html>proxy</html>"),
      ),
    );
    expectPipelineMayExist(
      await createFailure(() =>
        mock.gitlab.intercept({ path: at(createPath), method: "POST" }).reply(201, { id: "not a number" }, json),
      ),
    );
  });

  it("a 2xx nested more deeply than the core reads says the pipeline may exist, and why", async () => {
    const error = await createFailure(() =>
      mock.gitlab
        .intercept({ path: at(createPath), method: "POST" })
        .reply(201, pipeline({ id: 1284999, extra: nestedArrays(300, 1) }), json),
    );
    expectPipelineMayExist(error);
    expect(error.message).toContain("nested more than 256 levels deep");
  });

  it("a 5xx says the pipeline may exist", async () => {
    const error = await createFailure(() =>
      mock.gitlab.intercept({ path: at(createPath), method: "POST" }).reply(502, "Bad Gateway"),
    );
    expectPipelineMayExist(error);
    expect(error).toMatchObject({ httpStatus: 502 });
  });

  it("a connection that was never made stays a plain retryable failure: nothing reached GitLab", async () => {
    const error = await createFailure(() =>
      mock.gitlab.intercept({ path: at(createPath), method: "POST" }).replyWithError(connectionError("ECONNREFUSED")),
    );
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
    expect((error as UpstreamError).isRetryable).toBe(true);
  });

  it("a refusal (HTTP 400) stays a plain refusal", async () => {
    const error = await createFailure(() =>
      mock.gitlab
        .intercept({ path: at(createPath), method: "POST" })
        .reply(400, { message: { base: ["Reference not found"] } }, json),
    );
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
    expect(error.message).toMatch(/HTTP 400: Reference not found/);
  });
});

describe("retry_pipeline when GitLab's answer is lost", () => {
  function arrangeRetryReset(): void {
    mock.gitlab.intercept({ path: at(pipelinePath), method: "GET" }).reply(200, pipeline({ status: "failed" }), json);
    mock.gitlab
      .intercept({ path: at(`${pipelinePath}/jobs`), method: "GET" })
      .reply(200, fixture("jobs-failed.json"), json);
    mock.gitlab
      .intercept({ path: at(`${pipelinePath}/retry`), method: "POST" })
      .replyWithError(connectionError("ECONNRESET"));
  }

  it("finds the retry by a job newer than the watermark, and follows it as started", async () => {
    arrangeRetryReset();
    const jobs = fixture<Array<{ id: number }>>("jobs-failed.json");
    mock.gitlab
      .intercept({ path: at(`${pipelinePath}/jobs`), method: "GET" })
      .reply(200, [{ ...jobs[0], id: 7710004, status: "pending" }, ...jobs], json);
    const context = createTestContext();
    const started = await start("retry_pipeline", { project, pipelineId: 1284711 }, {}, context);
    expect(started.ref).toEqual({ project, pipelineId: 1284711, retriedAfterJobId: 7710003, jobsUpTo: 7710004 });
    expect(context.logEntries.map((entry) => entry.message)).toContain(
      "found the retried jobs of a retry whose answer was lost",
    );
  });

  it("without a newer job, says the retry may have happened and where to look, not to try again", async () => {
    arrangeRetryReset();
    mock.gitlab
      .intercept({ path: at(`${pipelinePath}/jobs`), method: "GET" })
      .reply(200, fixture("jobs-failed.json"), json);
    const error = await failureOf(start("retry_pipeline", { project, pipelineId: 1284711 }));
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).isRetryable).toBe(false);
    expect(error.message).toMatch(/Retrying pipeline 1284711 got no usable answer \(GitLab dropped the connection\)/);
    expect(error.message).toContain("watch_pipeline with pipelineId 1284711");
    expect(error.message).not.toContain("gitlab.example.com");
  });
});

describe("creating calls outlive their client", () => {
  it("a create whose client leaves while the POST is in flight returns the pipeline, for the server to cancel", async () => {
    const client = new AbortController();
    mock.gitlab
      .intercept({ path: at(createPath), method: "POST" })
      .reply(
        201,
        () => {
          client.abort(new DOMException("the client left", "AbortError"));
          return pipeline({ id: 1284999, status: "created" });
        },
        json,
      )
      .delay(20);
    const started = await start("create_pipeline", { project }, {}, createTestContext({ signal: client.signal }));
    expect(started.ref).toEqual({ project, pipelineId: 1284999 });
  });

  it("a retry whose client leaves while the POST is in flight returns the retry, for the server to cancel", async () => {
    const client = new AbortController();
    mock.gitlab.intercept({ path: at(pipelinePath), method: "GET" }).reply(200, pipeline({ status: "failed" }), json);
    mock.gitlab
      .intercept({ path: at(`${pipelinePath}/jobs`), method: "GET" })
      .reply(200, fixture("jobs-failed.json"), json);
    mock.gitlab
      .intercept({ path: at(`${pipelinePath}/retry`), method: "POST" })
      .reply(
        201,
        () => {
          client.abort(new DOMException("the client left", "AbortError"));
          return pipeline({ status: "running" });
        },
        json,
      )
      .delay(20);
    const started = await start(
      "retry_pipeline",
      { project, pipelineId: 1284711 },
      {},
      createTestContext({ signal: client.signal }),
    );
    expect(started.ref).toEqual({ project, pipelineId: 1284711, retriedAfterJobId: 7710003 });
  });

  it("nothing is sent for a client that has already left", async () => {
    const client = new AbortController();
    client.abort(new DOMException("the client left", "AbortError"));
    const error = await failureOf(
      start("create_pipeline", { project }, {}, createTestContext({ signal: client.signal })),
    );
    expect(error.name).toBe("AbortError");
  });
});

describe("reads that lose their answer", () => {
  it("stay plain retryable failures: reading again changes nothing", async () => {
    mock.gitlab.intercept({ path: at(pipelinePath), method: "GET" }).replyWithError(connectionError("ECONNRESET"));
    mock.gitlab.intercept({ path: at(pipelinePath), method: "GET" }).reply(200, "<html>proxy</html>");
    const adapter = createTestAdapter(mock);
    for (let read = 0; read < 2; read++) {
      const error = await failureOf(adapter.doGetStatus({ project, pipelineId: 1284711 }, createTestContext()));
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error).not.toBeInstanceOf(OutcomeUnknownError);
      expect((error as UpstreamError).isRetryable).toBe(true);
    }
  });
});
