import { describe, expect, it } from "vitest";
import { jobListSchema, type PipelineJob } from "./gitlab-response-schemas.js";
import type { PipelineRef } from "./pipeline-ref.js";
import { runOutcome, selectPipelineRun } from "./pipeline-run.js";
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
