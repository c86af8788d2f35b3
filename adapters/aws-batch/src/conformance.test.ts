import type { JobDetail } from "@aws-sdk/client-batch";
import { runAdapterConformance } from "@jobtasks/testkit";
import nock from "nock";
import { expect, it } from "vitest";
import { awsBatch } from "./aws-batch-adapter.js";
import type { BatchJobRef } from "./batch-job-ref.js";
import {
  batchOrigin,
  blockRealNetwork,
  fastRetry,
  testBatchClient,
  testCredentials,
} from "./test-support/aws-test-clients.js";
import { fixtureJob, readFixture } from "./test-support/fixtures.js";

/**
 * The shared suite against the real SDK over nock. The harness keeps a small fake of Batch's state: jobs by
 * id (DescribeJobs answers those it holds, like Batch silently leaving out unknown ids), SubmitJob adds one,
 * CancelJob/TerminateJob are recorded, and one id makes DescribeJobs answer 503.
 */
const unavailableJobId = "00000000-0000-4000-8000-000000000503";
let jobs = new Map<string, JobDetail>();
let cancelCalls: { path: string; jobId: string }[] = [];
let nextJobNumber = 0;

function newJobId(): string {
  nextJobNumber += 1;
  return `00000000-0000-4000-8000-${String(nextJobNumber).padStart(12, "0")}`;
}

function holdJob(job: JobDetail): BatchJobRef {
  const jobId = newJobId();
  jobs.set(jobId, { ...job, jobId });
  return { jobId };
}

/** Batch has seven statuses; FAILED splits by how the job ended, so the labels name the case. */
const arrangements: Record<string, () => JobDetail> = {
  SUBMITTED: () => fixtureJob("describe-jobs-running.json", { status: "SUBMITTED", startedAt: undefined }),
  PENDING: () => fixtureJob("describe-jobs-running.json", { status: "PENDING", startedAt: undefined }),
  RUNNABLE: () => fixtureJob("describe-jobs-runnable-no-capacity.json"),
  STARTING: () => fixtureJob("describe-jobs-running.json", { status: "STARTING" }),
  RUNNING: () => fixtureJob("describe-jobs-running.json"),
  "PENDING array parent": () => fixtureJob("describe-jobs-array-pending.json"),
  SUCCEEDED: () => fixtureJob("describe-jobs-succeeded.json"),
  FAILED: () => fixtureJob("describe-jobs-failed.json"),
  "FAILED after CancelJob": () => fixtureJob("describe-jobs-cancelled.json"),
  "FAILED after TerminateJob": () =>
    fixtureJob("describe-jobs-failed.json", { isTerminated: true, statusReason: "Terminated by an operator" }),
};

function mockBatch(): void {
  const scope = nock(batchOrigin).persist();
  scope.post("/v1/describejobs").reply((_uri, body) => {
    const jobIds = (body as { jobs: string[] }).jobs;
    if (jobIds.includes(unavailableJobId)) {
      return [
        503,
        { __type: "ServerException", message: "Service unavailable" },
        { "x-amzn-errortype": "ServerException" },
      ];
    }
    return [200, { jobs: jobIds.flatMap((jobId) => jobs.get(jobId) ?? []) }];
  });
  scope.post("/v1/submitjob").reply((_uri, body) => {
    const request = body as { jobName: string };
    const jobId = newJobId();
    jobs.set(jobId, fixtureJob("describe-jobs-running.json", { jobId, jobName: request.jobName, status: "SUBMITTED" }));
    return [200, { ...readFixture("submit-job.json"), jobId, jobName: request.jobName }];
  });
  for (const path of ["/v1/canceljob", "/v1/terminatejob"]) {
    scope.post(path).reply((_uri, body) => {
      cancelCalls.push({ path, jobId: (body as { jobId: string }).jobId });
      return [200, {}];
    });
  }
}

runAdapterConformance<BatchJobRef>({
  name: "aws-batch",
  createAdapter() {
    jobs = new Map();
    cancelCalls = [];
    blockRealNetwork();
    mockBatch();
    return awsBatch({
      batchClient: testBatchClient(1),
      credentials: testCredentials,
      region: "us-east-1",
      retry: fastRetry,
      describeBatchWindowMs: 1,
      templates: [
        {
          tool: "render_frames",
          description: "Render the frames of a scene on AWS Batch",
          jobQueue: "render-queue",
          jobDefinition: "blender-render:3",
          parameters: { scene: { description: "Scene file" } },
        },
      ],
    });
  },
  cleanup() {
    nock.cleanAll();
    nock.enableNetConnect();
  },
  secrets: [testCredentials.accessKeyId, testCredentials.secretAccessKey],

  statuses: [
    { rawStatus: "SUBMITTED", expected: "working" },
    { rawStatus: "PENDING", expected: "working" },
    { rawStatus: "RUNNABLE", expected: "working" },
    { rawStatus: "STARTING", expected: "working" },
    { rawStatus: "RUNNING", expected: "working" },
    { rawStatus: "PENDING array parent", expected: "working" },
    { rawStatus: "SUCCEEDED", expected: "completed", isError: false },
    { rawStatus: "FAILED", expected: "completed", isError: true },
    { rawStatus: "FAILED after CancelJob", expected: "cancelled" },
    { rawStatus: "FAILED after TerminateJob", expected: "cancelled" },
  ],
  arrangeStatus(rawStatus) {
    const arrange = arrangements[rawStatus];
    return holdJob(
      arrange ? arrange() : fixtureJob("describe-jobs-running.json", { status: rawStatus as JobDetail["status"] }),
    );
  },
  unknownRawStatus: "SCALING_DOWN",
  arrangeNotFound: () => ({ jobId: "00000000-0000-4000-8000-000000000404" }),
  arrangeRetryableFailure: () => ({ jobId: unavailableJobId }),

  start: { tool: "render_frames", input: { parameters: { scene: "shots/intro.blend" } } },
  cancel: {
    arrange: () => holdJob(fixtureJob("describe-jobs-running.json")),
    verifyCancelRequested: (ref) =>
      cancelCalls.some((call) => call.path === "/v1/terminatejob" && call.jobId === ref.jobId),
  },

  additionalTests({ harness, createAdapter, createContext }) {
    it("answers the same terminal snapshot on every read of a finished job", async () => {
      const adapter = await createAdapter();
      const ref = await harness.arrangeStatus("FAILED");
      const first = await adapter.doGetStatus(ref, createContext());
      expect(await adapter.doGetStatus(ref, createContext())).toEqual(first);
    });
  },
});
