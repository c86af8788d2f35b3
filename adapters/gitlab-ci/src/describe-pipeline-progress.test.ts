import { describe, expect, it } from "vitest";
import { describePipelineProgress } from "./describe-pipeline-progress.js";
import { jobListSchema, type PipelineJob } from "./gitlab-response-schemas.js";
import { mapGitlabCiStatus } from "./map-gitlab-ci-status.js";
import { currentJobs } from "./pipeline-run.js";
import { fixture } from "./test-support/mock-gitlab.js";

/** A fixture's jobs as the adapter reads them: parsed, oldest first, with some changed. */
function jobs(name: string, changes: Record<number, Partial<PipelineJob>> = {}): PipelineJob[] {
  const listed = jobListSchema.parse(fixture(name)).map((job) => ({ ...job, ...changes[job.id] }));
  return currentJobs(listed);
}

function message(pipelineStatus: string, listed: PipelineJob[]): string {
  const phase = mapGitlabCiStatus(pipelineStatus);
  if (phase.phase !== "working") throw new Error(`${pipelineStatus} is not a working status`);
  return describePipelineProgress(pipelineStatus, phase.message, listed);
}

describe("describePipelineProgress", () => {
  it.each([
    ["running", jobs("jobs-test-stage.json"), "test: rspec (2 of 5 jobs done)"],
    [
      "running",
      jobs("jobs-test-stage.json", { 7710044: { status: "running" } }),
      "test: rspec and 1 more (2 of 5 jobs done)",
    ],
    ["running", jobs("jobs-running.json"), "test: rspec 1/2 (1 of 2 jobs done)"],
    [
      "pending",
      jobs("jobs-test-stage.json", { 7710043: { status: "pending" } }),
      "pending: waiting for a runner (test: rspec; 2 of 5 jobs done)",
    ],
    [
      "canceling",
      jobs("jobs-test-stage.json"),
      "cancel requested: GitLab is stopping the jobs (test: rspec; 2 of 5 jobs done)",
    ],
    [
      "running",
      jobs("jobs-test-stage.json", { 7710043: { status: "success" }, 7710044: { status: "success" } }),
      "running (deploy: deploy staging; 4 of 5 jobs done)",
    ],
    ["created", [], "created: GitLab is creating the jobs"],
    // Made up: a status GitLab may add one day keeps its raw value, and the jobs still say where it is.
    [
      "hibernating",
      jobs("jobs-running.json"),
      "GitLab reports status 'hibernating', which this adapter does not know (test: rspec 1/2; 1 of 2 jobs done)",
    ],
  ])("a %s pipeline: %#", (status, listed, expected) => {
    expect(message(status, listed)).toBe(expected);
  });

  it("counts one job as one job", () => {
    expect(message("running", jobs("jobs-running.json").slice(1))).toBe("test: rspec 1/2 (0 of 1 job done)");
  });
});
