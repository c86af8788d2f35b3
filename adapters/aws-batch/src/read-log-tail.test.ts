import { CloudWatchLogsClient } from "@aws-sdk/client-cloudwatch-logs";
import { UpstreamError } from "@jobtasks/core";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogsApi } from "./aws-batch-api.js";
import { fitLogLines, readLogTail } from "./read-log-tail.js";
import { blockRealNetwork, logsOrigin, testCredentials, testLogsClient } from "./test-support/aws-test-clients.js";
import { fixtureJob } from "./test-support/fixtures.js";

const logOptions = { logGroupName: "/aws/batch/job", maxLines: 50, maxBytes: 4096, settleMs: 0, giveUpMs: 300_000 };
// GetLogEvents is sent once per status read: the server's reader retries the read, so no backoff here.
const call = {};

describe("fitLogLines", () => {
  it("keeps the newest lines that fit the byte budget, oldest first", () => {
    expect(fitLogLines(["one\n", "two", "three"], 9)).toEqual({ text: "two\nthree", truncated: true });
    expect(fitLogLines(["one", "two"], 100)).toEqual({ text: "one\ntwo", truncated: false });
  });

  it("counts UTF-8 bytes, not characters", () => {
    // "été" is 5 bytes: two lines of it and a newline need 11.
    expect(fitLogLines(["été", "été"], 10)).toEqual({ text: "été", truncated: true });
  });

  it("keeps the end of a single line longer than the budget, without a broken character", () => {
    const result = fitLogLines([`start ${"é".repeat(50)}`], 9);
    expect(result.truncated).toBe(true);
    expect(Buffer.byteLength(result.text)).toBeLessThanOrEqual(9);
    expect(result.text).toMatch(/^é+$/);
  });
});

describe("fitLogLines on a hostile log", () => {
  it("removes escape sequences and shows carriage returns and bidi overrides", () => {
    const lines = ["\u001b]52;c;ZWNobw==\u0007step \u001b[31mok\u001b[0m", "ok\roverwritten \u202Eevil\u009b2J"];
    expect(fitLogLines(lines, 1000).text).toBe("step ok\nok␍overwritten <U+202E>evil");
  });
});

describe("readLogTail", () => {
  beforeEach(blockRealNetwork);
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });
  const job = fixtureJob("describe-jobs-succeeded.json");

  it("reads the end of the last attempt's stream from the default group, hiding key-shaped credentials", async () => {
    nock(logsOrigin)
      .post("/", {
        logGroupName: "/aws/batch/job",
        logStreamName: "blender-render/default/0f1e2d3c4b5a69788796a5b4c3d2e1f0",
        startFromHead: false,
        limit: 50,
      })
      .reply(200, {
        events: [
          { timestamp: 1, message: `key=${testCredentials.secretAccessKey}` },
          { timestamp: 2, message: "assumed role as ASIAABCDEFGHIJKLMNOP" },
          { timestamp: 3, message: "done" },
        ],
      });
    const tail = await readLogTail(createLogsApi(testLogsClient()), job, logOptions, call);
    // The configured keys are the core's to redact (secret-redaction.test.ts); an access key id the adapter
    // never held is hidden here by its shape.
    expect(tail).toEqual({
      text: `key=${testCredentials.secretAccessKey}\nassumed role as [redacted]\ndone`,
      truncated: false,
    });
  });

  it.each([
    ["ResourceNotFoundException", 400, /^log unavailable: the log stream does not exist/],
    ["AccessDeniedException", 400, /^log unavailable: .*logs:GetLogEvents/],
    [
      "InvalidParameterException",
      400,
      /^log unavailable: CloudWatch Logs refused the request \(InvalidParameterException\)/,
    ],
  ])("notes %s, a condition that lasts, instead of failing the result", async (errorType, status, note) => {
    nock(logsOrigin).post("/").reply(status, { __type: errorType, message: "no" }, { "x-amzn-errortype": errorType });
    const tail = await readLogTail(createLogsApi(testLogsClient()), job, logOptions, call);
    expect(tail?.text).toBeUndefined();
    expect(tail?.note).toMatch(note);
  });

  it("throws a retryable error when Logs is briefly unavailable, so a finished result does not lose its tail to it", async () => {
    nock(logsOrigin).post("/").reply(503, { __type: "ServiceUnavailableException", message: "busy" });
    const error = await readLogTail(
      createLogsApi(testLogsClient()),
      { ...job, stoppedAt: Date.now() - 1000 },
      logOptions,
      call,
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).isRetryable).toBe(true);
    expect((error as Error).message).toMatch(
      /^CloudWatch Logs GetLogEvents failed \(ServiceUnavailableException, HTTP 503\)/,
    );
  });

  // A finished job must never end failed because of its log: the result is the job's, the log an extra.
  it.each([
    ["UnrecognizedClientException", 400, "wrong credentials for Logs"],
    ["ValidationException", 400, "a refused request"],
    ["SomeFutureException", 400, "a code jobtasks does not know"],
    ["NotFound", 404, "a wrong logs.endpoint answering 4xx"],
  ])("notes %s (%s) in the result instead of an error", async (errorType, status) => {
    nock(logsOrigin).post("/").reply(status, { __type: errorType, message: "no" }, { "x-amzn-errortype": errorType });
    const tail = await readLogTail(createLogsApi(testLogsClient()), job, logOptions, call);
    expect(tail?.text).toBeUndefined();
    expect(tail?.note).toMatch(new RegExp(`^log unavailable: .*${errorType}`));
  });

  it("keeps expired credentials retryable for a job that stopped moments ago: they can be renewed", async () => {
    nock(logsOrigin)
      .post("/")
      .reply(
        400,
        { __type: "ExpiredTokenException", message: "expired" },
        { "x-amzn-errortype": "ExpiredTokenException" },
      );
    const justStopped = { ...job, stoppedAt: Date.now() - 1000 };
    const error = await readLogTail(createLogsApi(testLogsClient()), justStopped, logOptions, call).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).isRetryable).toBe(true);
  });

  it("gives up on a passing Logs fault once the job stopped longer ago than giveUpMs, with a note", async () => {
    nock(logsOrigin).post("/").reply(503, { __type: "ServiceUnavailableException", message: "busy" });
    const stoppedLongAgo = { ...job, stoppedAt: Date.now() - 6 * 60_000 };
    const tail = await readLogTail(
      createLogsApi(testLogsClient()),
      stoppedLongAgo,
      { ...logOptions, giveUpMs: 5 * 60_000 },
      call,
    );
    expect(tail?.note).toMatch(/^log unavailable: CloudWatch Logs did not answer .*ServiceUnavailableException/);
  });

  /** The succeeded fixture, logging with awslogs to the given group and Region. */
  function jobLoggingTo(region: string) {
    const other = fixtureJob("describe-jobs-succeeded.json");
    if (other.container) {
      other.container.logConfiguration = {
        logDriver: "awslogs",
        options: { "awslogs-group": "/render", "awslogs-region": region },
      };
    }
    return other;
  }

  it("reads a log kept in another Region (awslogs-region) with a client for that Region", async () => {
    const regions: string[] = [];
    nock("https://logs.eu-west-1.amazonaws.com")
      .post("/", { logGroupName: "/render", logStreamName: /.+/, startFromHead: false, limit: 50 })
      .reply(200, { events: [{ timestamp: 1, message: "from Ireland" }] });
    const clientForRegion = (region: string) => {
      regions.push(region);
      return createLogsApi(new CloudWatchLogsClient({ region, credentials: { ...testCredentials }, maxAttempts: 1 }));
    };
    const tail = await readLogTail(createLogsApi(testLogsClient()), jobLoggingTo("eu-west-1"), logOptions, {
      ...call,
      clientForRegion,
    });
    expect(tail).toEqual({ text: "from Ireland", truncated: false });
    expect(regions).toEqual(["eu-west-1"]);
  });

  it("says the log is in another Region, not that the stream does not exist, when it cannot read there", async () => {
    const tail = await readLogTail(createLogsApi(testLogsClient()), jobLoggingTo("eu-west-1"), logOptions, call);
    expect(tail?.note).toMatch(/^log unavailable: the job logs to CloudWatch Logs in eu-west-1/);
  });

  it("uses its own client when awslogs-region is its Region", async () => {
    nock(logsOrigin)
      .post("/")
      .reply(200, { events: [{ timestamp: 1, message: "here" }] });
    const tail = await readLogTail(createLogsApi(testLogsClient()), jobLoggingTo("us-east-1"), logOptions, call);
    expect(tail?.text).toBe("here");
  });

  it("reads nothing for a job without a log stream (an array parent, or a job that never started)", async () => {
    const tail = await readLogTail(
      createLogsApi(testLogsClient()),
      fixtureJob("describe-jobs-array-pending.json"),
      logOptions,
      call,
    );
    expect(tail).toBeUndefined();
  });

  it("says so when the job logs somewhere other than CloudWatch Logs", async () => {
    const splunkJob = fixtureJob("describe-jobs-succeeded.json");
    if (splunkJob.container) splunkJob.container.logConfiguration = { logDriver: "splunk" };
    const tail = await readLogTail(createLogsApi(testLogsClient()), splunkJob, logOptions, call);
    expect(tail?.note).toMatch(/splunk/);
  });
});
