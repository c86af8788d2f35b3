import { describe, expect, it } from "vitest";
import { jobListSchema, type PipelineJob } from "./gitlab-response-schemas.js";
import type { PipelineRef } from "./pipeline-ref.js";
import { runOutcome, selectPipelineRun, type PipelineRun } from "./pipeline-run.js";
import { fixture, project } from "./test-support/mock-gitlab.js";

const pipelineId = 1284711;
const retried = jobListSchema.parse(fixture("jobs-retried.json"));
const failed = jobListSchema.parse(fixture("jobs-failed.json"));

function ids(listed: readonly PipelineJob[]): number[] {
  return listed.map((job) => job.id);
}

describe("selectPipelineRun", () => {
  it("follows the pipeline as it is for a ref sealed without a run (every task id from before)", () => {
    const run = selectPipelineRun({ project, pipelineId }, retried);
    expect(run.kind).toBe("current");
    // The retry's job replaced the failed one of the same name.
    expect(ids("jobs" in run ? run.jobs : [])).toEqual([7710001, 7710002, 7710052]);
  });

  it("answers a run that ended before the retry from its own jobs", () => {
    const run = selectPipelineRun({ project, pipelineId, jobsUpTo: 7710003 }, retried);
    expect(run).toMatchObject({ kind: "ended-before-retry", outcome: "failed" });
    expect(ids("jobs" in run ? run.jobs : [])).toEqual([7710001, 7710002, 7710003]);
  });

  it("follows the pipeline when the task's run is the newest one", () => {
    expect(selectPipelineRun({ project, pipelineId, jobsUpTo: 7710052 }, retried).kind).toBe("current");
    expect(selectPipelineRun({ project, pipelineId, jobsUpTo: 7710003 }, failed).kind).toBe("current");
  });

  it("keeps a retry's task waiting until a retried job shows, then follows it", () => {
    const ref: PipelineRef = { project, pipelineId, retriedAfterJobId: 7710003 };
    expect(selectPipelineRun(ref, failed).kind).toBe("retry-pending");
    expect(selectPipelineRun(ref, retried).kind).toBe("current");
  });

  it("follows the pipeline when a job was retried before the task's run ended", () => {
    const stillRunning = retried.map((job) => (job.id === 7710002 ? { ...job, status: "running" } : job));
    const run = selectPipelineRun({ project, pipelineId, jobsUpTo: 7710003 }, stillRunning);
    expect(run.kind).toBe("retried-while-running");
    expect(ids("jobs" in run ? run.jobs : [])).toEqual([7710001, 7710002, 7710052]);
  });

  it("follows the pipeline when a job was retried while the run's other jobs still ran, also once they ended", () => {
    // The failed job was retried at 09:14, while lint ran until 09:15: the retry continues the run.
    const retriedEarly = retried.map((job) =>
      job.id === 7710052
        ? { ...job, created_at: "2026-11-30T09:14:00.000Z" }
        : job.id === 7710002
          ? { ...job, finished_at: "2026-11-30T09:15:00.000Z" }
          : job.id === 7710003
            ? { ...job, finished_at: "2026-11-30T09:13:50.000Z" }
            : job,
    );
    expect(selectPipelineRun({ project, pipelineId, jobsUpTo: 7710003 }, retriedEarly).kind).toBe(
      "retried-while-running",
    );
  });
});

describe("selectPipelineRun after a job retry, by GitLab's timestamps", () => {
  /** A job as GitLab lists it with `include_retried=true` (every field of the fixtures). */
  function gitlabJob(
    id: number,
    name: string,
    stage: string,
    status: string,
    times: { created: string; started?: string; finished?: string },
    extra: Partial<PipelineJob> & { retried?: boolean } = {},
  ): PipelineJob {
    const [parsed] = jobListSchema.parse([
      {
        id,
        status,
        stage,
        name,
        allow_failure: false,
        retried: false,
        created_at: times.created,
        started_at: times.started ?? null,
        finished_at: times.finished ?? null,
        failure_reason: status === "failed" ? "script_failure" : null,
        artifacts: [],
        ...extra,
      },
    ]);
    return parsed!;
  }
  const build = gitlabJob(9001, "build", "build", "success", {
    created: "2026-11-30T10:00:00.000Z",
    started: "2026-11-30T10:00:02.000Z",
    finished: "2026-11-30T10:01:00.000Z",
  });
  /** The job the task's run ended with (`jobsUpTo`), failed at 10:02:00.4. */
  const deployFailed = (extra: Partial<PipelineJob> = {}) =>
    gitlabJob(
      9002,
      "deploy",
      "deploy",
      "failed",
      {
        created: "2026-11-30T10:00:00.000Z",
        started: "2026-11-30T10:01:05.000Z",
        finished: "2026-11-30T10:02:00.400Z",
      },
      { retried: true, ...extra },
    );
  // GitLab's `retry:` keyword creates the retry while it marks the job failed, in the same request.
  const autoRetry = (status: string, finished?: string, extra: { retried?: boolean } = {}) =>
    gitlabJob(
      9003,
      "deploy",
      "deploy",
      status,
      {
        created: "2026-11-30T10:02:00.900Z",
        ...(status === "pending" ? {} : { started: "2026-11-30T10:02:04.000Z" }),
        ...(finished ? { finished } : {}),
      },
      extra,
    );

  it.each<[string, PipelineJob[], PipelineRun["kind"], number[], string?]>([
    [
      "retry: retried the last job as it failed, and the retry waits for a runner",
      [build, deployFailed(), autoRetry("pending")],
      "retried-while-running",
      [9001, 9003],
    ],
    [
      "retry: retried the last job as it failed, and the retry runs",
      [build, deployFailed(), autoRetry("running")],
      "retried-while-running",
      [9001, 9003],
    ],
    [
      "retry: retried the last job, and the retry failed too: the pipeline's end is the run's",
      [build, deployFailed(), autoRetry("failed", "2026-11-30T10:03:00.000Z")],
      "retried-while-running",
      [9001, 9003],
    ],
    [
      "retry: 2 retried the last job twice, and the second retry runs",
      [
        build,
        deployFailed(),
        autoRetry("failed", "2026-11-30T10:03:00.000Z", { retried: true }),
        gitlabJob(9004, "deploy", "deploy", "running", {
          created: "2026-11-30T10:03:00.600Z",
          started: "2026-11-30T10:03:02.000Z",
        }),
      ],
      "retried-while-running",
      [9001, 9004],
    ],
    [
      "retry: retried the last job, then the pipeline was retried ten minutes after its end",
      [
        build,
        deployFailed(),
        autoRetry("failed", "2026-11-30T10:03:00.000Z", { retried: true }),
        gitlabJob(9004, "deploy", "deploy", "running", {
          created: "2026-11-30T10:13:00.000Z",
          started: "2026-11-30T10:13:03.000Z",
        }),
      ],
      "ended-before-retry",
      [9001, 9003],
      "failed",
    ],
    [
      "the pipeline retried a minute after the job failed",
      [build, deployFailed(), gitlabJob(9003, "deploy", "deploy", "pending", { created: "2026-11-30T10:03:00.000Z" })],
      "ended-before-retry",
      [9001, 9002],
      "failed",
    ],
    [
      "the pipeline retried 11 seconds after the job failed",
      [build, deployFailed(), gitlabJob(9003, "deploy", "deploy", "pending", { created: "2026-11-30T10:02:11.400Z" })],
      "ended-before-retry",
      [9001, 9002],
      "failed",
    ],
    [
      // retry: never retries a canceled job, so only a person or retry_pipeline did.
      "a canceled job retried at once",
      [build, deployFailed({ status: "canceled", failure_reason: null }), autoRetry("pending")],
      "ended-before-retry",
      [9001, 9002],
      "canceled",
    ],
    [
      // GitLab always gives a failed job's finished_at; without it nothing tells, so the task follows.
      "a retry of a failed job whose finish time is not given",
      [build, deployFailed({ finished_at: null }), autoRetry("pending")],
      "retried-while-running",
      [9001, 9003],
    ],
  ])("%s", (_, listed, kind, jobIds, outcome) => {
    const run = selectPipelineRun({ project, pipelineId, jobsUpTo: 9002 }, listed);
    expect(run.kind).toBe(kind);
    expect(ids("jobs" in run ? run.jobs : [])).toEqual(jobIds);
    if (outcome) expect(run).toMatchObject({ outcome });
  });
});

describe("selectPipelineRun after a retry of the pipeline that reran jobs the run had skipped", () => {
  // GitLab's pipeline retry reruns the jobs the run skipped in later stages under their own ids: those ids
  // are the task's run, but what they do now belongs to the retry.
  const job = (id: number, name: string, status: string, times: Record<string, string | null>): PipelineJob =>
    jobListSchema.parse([
      {
        id,
        name,
        stage: name,
        status,
        allow_failure: false,
        created_at: "2026-11-30T10:00:00.000Z",
        started_at: null,
        finished_at: null,
        ...times,
      },
    ])[0]!;
  const build = job(9101, "build", "success", {
    started_at: "2026-11-30T10:00:02.000Z",
    finished_at: "2026-11-30T10:01:00.000Z",
  });
  const testFailed = job(9102, "test", "failed", {
    started_at: "2026-11-30T10:01:02.000Z",
    finished_at: "2026-11-30T10:02:00.400Z",
  });
  /** The retry, five minutes after the failure: the test again, under a new id. */
  const testAgain = (status: string, times: Record<string, string | null> = {}) =>
    job(9104, "test", status, { created_at: "2026-11-30T10:05:00.000Z", ...times });

  it.each<[string, PipelineJob[]]>([
    [
      "the rerun deploy waits for the retried test",
      [
        build,
        testFailed,
        job(9103, "deploy", "created", {}),
        testAgain("running", { started_at: "2026-11-30T10:05:02.000Z" }),
      ],
    ],
    [
      "the rerun deploy runs",
      [
        build,
        testFailed,
        job(9103, "deploy", "running", { started_at: "2026-11-30T10:06:05.000Z" }),
        testAgain("success", { started_at: "2026-11-30T10:05:02.000Z", finished_at: "2026-11-30T10:06:00.000Z" }),
      ],
    ],
    [
      "the rerun deploy succeeded",
      [
        build,
        testFailed,
        job(9103, "deploy", "success", {
          started_at: "2026-11-30T10:06:05.000Z",
          finished_at: "2026-11-30T10:07:00.000Z",
        }),
        testAgain("success", { started_at: "2026-11-30T10:05:02.000Z", finished_at: "2026-11-30T10:06:00.000Z" }),
      ],
    ],
  ])("the task's run keeps its failure: %s", (_, listed) => {
    const run = selectPipelineRun({ project, pipelineId, jobsUpTo: 9103 }, listed);
    expect(run).toMatchObject({ kind: "ended-before-retry", outcome: "failed" });
    expect(ids("jobs" in run ? run.jobs : [])).toEqual([9101, 9102, 9103]);
    // In the task's run the deploy never ran.
    expect("jobs" in run ? run.jobs.find((listedJob) => listedJob.id === 9103)?.status : undefined).toBe("skipped");
  });

  it("follows the pipeline when the retry's own start time is not given (nothing tells the runs apart)", () => {
    const listed = [build, testFailed, job(9103, "deploy", "created", {}), testAgain("running", { created_at: null })];
    expect(selectPipelineRun({ project, pipelineId, jobsUpTo: 9103 }, listed).kind).toBe("retried-while-running");
  });
});

describe("runOutcome", () => {
  const job = (status: string, extra: Partial<PipelineJob> = {}): PipelineJob => ({
    id: 1,
    name: status,
    stage: "test",
    status,
    ...extra,
  });

  it.each<[string, PipelineJob[], ReturnType<typeof runOutcome>]>([
    ["a failed job", [job("success"), job("failed")], "failed"],
    ["an allowed failure", [job("success"), job("failed", { allow_failure: true })], "success"],
    ["a canceled job", [job("success"), job("canceled")], "canceled"],
    ["skipped jobs", [job("success"), job("skipped")], "success"],
    ["an optional manual job", [job("success"), job("manual", { allow_failure: true })], "success"],
    ["a blocking manual job", [job("success"), job("manual", { allow_failure: false })], undefined],
    ["a job still running", [job("failed"), job("running")], undefined],
    // Made up: a job status GitLab may add one day does not end a run.
    ["a job in an unknown status", [job("success"), job("hibernating")], undefined],
  ])("%s", (_, listed, expected) => {
    expect(runOutcome(listed)).toBe(expected);
  });
});
