import { describe, expect, it } from "vitest";
import { collectFailedSteps, type CollectSettings, type LogBudget } from "./collect-failed-steps.js";
import type { GithubApi } from "./github-actions-api.js";
import type { WorkflowJob } from "./github-response-schemas.js";
import { runRef } from "./test-support/github-fixtures.js";

function failedJob(id: number, name: string, withFailingStep: boolean): WorkflowJob {
  return {
    id,
    name,
    status: "completed",
    conclusion: "failure",
    started_at: "2026-11-20T10:00:00Z",
    completed_at: "2026-11-20T10:01:00Z",
    html_url: null,
    steps: withFailingStep
      ? [
          {
            name: "Run tests",
            number: 1,
            status: "completed",
            conclusion: "failure",
            started_at: "2026-11-20T10:00:00Z",
            completed_at: "2026-11-20T10:01:00Z",
          },
        ]
      : [],
  };
}

function logOf(jobId: number | string): string {
  return Array.from(
    { length: 20 },
    (_, index) => `2026-11-20T10:00:${String(index + 10)}.0000000Z job ${jobId} line ${index + 1}`,
  ).join("\n");
}

/** A log as the API hands it over: text chunks. */
async function* chunksOf(text: string): AsyncIterable<string> {
  yield text;
}

function settings(budget: Partial<LogBudget>): CollectSettings {
  const logs = {
    maxLinesPerStep: 10,
    maxBytes: 1000,
    maxFailedJobs: 3,
    maxReadBytes: 50 * 1024 * 1024,
    maxReadMs: 15_000,
    ...budget,
  };
  return {
    budget: logs,
    signal: new AbortController().signal,
    finishedAt: "2026-11-20T10:01:00Z",
    now: () => Date.parse("2026-11-20T10:01:30Z"),
  };
}

describe("collectFailedSteps", () => {
  it("downloads logs for at most maxFailedJobs jobs and shares the byte budget among their steps", async () => {
    const downloads: Array<number | string> = [];
    const api = {
      downloadJobLog: async (_ref: unknown, jobId: number | string) => (downloads.push(jobId), chunksOf(logOf(jobId))),
    } as unknown as GithubApi;
    const jobs = [failedJob(1, "unit", true), failedJob(2, "e2e", false), failedJob(3, "lint", true)];
    const steps = await collectFailedSteps(
      api,
      runRef,
      jobs,
      settings({ maxLinesPerStep: 10, maxBytes: 100, maxFailedJobs: 2 }),
    );

    expect(downloads).toEqual([1, 2]);
    expect(steps.map((step) => [step.job, step.step])).toEqual([
      ["unit", "Run tests"],
      ["e2e", null],
      ["lint", "Run tests"],
    ]);
    for (const step of steps.slice(0, 2)) {
      expect(Buffer.byteLength(step.logTail)).toBeLessThanOrEqual(50);
      expect(step.logTail.endsWith("line 20")).toBe(true);
    }
    expect(steps[2]).toMatchObject({ logTail: "(log not fetched: over the failed-job budget)", logTruncated: true });
  });

  it("bounds the time spent on a log that stalls, noting it in the result instead of failing the read", async () => {
    const api = {
      downloadJobLog: async (_ref: unknown, _jobId: unknown, options: { signal: AbortSignal }) =>
        (async function* () {
          yield "2026-11-20T10:00:30.0000000Z the last line that came\n";
          // The connection stalls until the download is aborted.
          await new Promise((_resolve, reject) =>
            options.signal.addEventListener("abort", () => reject(options.signal.reason), { once: true }),
          );
        })(),
    } as unknown as GithubApi;
    const started = Date.now();
    const [step] = await collectFailedSteps(api, runRef, [failedJob(1, "unit", true)], settings({ maxReadMs: 50 }));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(step).toMatchObject({ logTruncated: true });
    expect(step!.logTail).toBe(
      "the last line that came\n(log cut short: reading stopped: not read within 0.05 s; the step's last lines may be missing)",
    );
  });
});
