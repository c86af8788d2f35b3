import type { JobDetail } from "@aws-sdk/client-batch";
import { JobNotFoundError, UpstreamError } from "@jobtasks/core";
import { describe, expect, it } from "vitest";
import { createDescribeJobsBatcher } from "./describe-jobs-batcher.js";

function recordingDescribe(known: (jobId: string) => boolean = () => true) {
  const calls: string[][] = [];
  return {
    calls,
    describe: async (jobIds: string[]): Promise<JobDetail[]> => {
      calls.push(jobIds);
      return jobIds.filter(known).map((jobId) => ({ jobId, status: "RUNNING" }) as JobDetail);
    },
  };
}

describe("createDescribeJobsBatcher", () => {
  it("answers 250 concurrent reads with three calls of at most 100 ids", async () => {
    const upstream = recordingDescribe();
    const batcher = createDescribeJobsBatcher({ describe: upstream.describe, windowMs: 5 });
    const ids = Array.from({ length: 250 }, (_, index) => `job-${index}`);
    const jobs = await Promise.all(ids.map((id) => batcher.load(id)));
    expect(jobs.map((job) => job.jobId)).toEqual(ids);
    expect(upstream.calls.map((call) => call.length)).toEqual([100, 100, 50]);
  });

  it("asks once for an id that many tasks read at the same time", async () => {
    const upstream = recordingDescribe();
    const batcher = createDescribeJobsBatcher({ describe: upstream.describe, windowMs: 5 });
    await Promise.all([batcher.load("a"), batcher.load("a"), batcher.load("b"), batcher.load("a")]);
    expect(upstream.calls).toEqual([["a", "b"]]);
  });

  it("rejects ids DescribeJobs leaves out with JobNotFoundError, saying unknown or expired", async () => {
    const upstream = recordingDescribe((jobId) => jobId !== "gone");
    const batcher = createDescribeJobsBatcher({ describe: upstream.describe, windowMs: 5 });
    const [found, missing] = await Promise.allSettled([batcher.load("here"), batcher.load("gone")]);
    expect(found.status).toBe("fulfilled");
    expect(missing.status).toBe("rejected");
    const reason = (missing as PromiseRejectedResult).reason as Error;
    expect(reason).toBeInstanceOf(JobNotFoundError);
    expect(reason.message).toMatch(/gone is unknown or expired/);
  });

  it("hands a failed call's error to every read in the batch", async () => {
    const failure = new UpstreamError("throttled", { httpStatus: 429 });
    const batcher = createDescribeJobsBatcher({ describe: () => Promise.reject(failure), windowMs: 5 });
    const results = await Promise.allSettled([batcher.load("a"), batcher.load("b")]);
    expect(results.map((result) => (result as PromiseRejectedResult).reason)).toEqual([failure, failure]);
  });

  it("rejects every read with a retryable error when describe gives something that is not a list of jobs", async () => {
    const batcher = createDescribeJobsBatcher({ describe: async () => [null] as unknown as JobDetail[], windowMs: 1 });
    const results = await Promise.allSettled([batcher.load("a"), batcher.load("b")]);
    for (const result of results) {
      expect(result.status).toBe("rejected");
      expect((result as PromiseRejectedResult).reason).toMatchObject({ isRetryable: true });
    }
  });

  it("retries each id alone after a refused shared call, so one bad id fails only its own read", async () => {
    const calls: string[][] = [];
    const describe = async (jobIds: string[]): Promise<JobDetail[]> => {
      calls.push(jobIds);
      if (jobIds.includes("bad")) throw new UpstreamError(`refused ${jobIds.join(",")}`, { httpStatus: 400 });
      return jobIds.map((jobId) => ({ jobId, status: "RUNNING" }) as JobDetail);
    };
    const batcher = createDescribeJobsBatcher({ describe, windowMs: 5 });
    const [good, bad, other] = await Promise.allSettled([
      batcher.load("good"),
      batcher.load("bad"),
      batcher.load("other"),
    ]);
    expect(good).toMatchObject({ status: "fulfilled", value: { jobId: "good" } });
    expect(other).toMatchObject({ status: "fulfilled", value: { jobId: "other" } });
    expect(bad.status).toBe("rejected");
    // The refusal the bad read gets is the one about its own id, not the shared call's.
    expect(((bad as PromiseRejectedResult).reason as Error).message).toBe("refused bad");
    expect(calls[0]).toEqual(["good", "bad", "other"]);
    // Split in halves: the half without the bad id is read at once, the other is split again.
    expect(calls.slice(1).sort()).toEqual([["bad"], ["bad", "other"], ["good"], ["other"]]);
  });

  it("costs a handful of extra calls, not one per id, when one id among 100 is refused", async () => {
    const calls: string[][] = [];
    const describe = async (jobIds: string[]): Promise<JobDetail[]> => {
      calls.push(jobIds);
      if (jobIds.includes("bad")) throw new UpstreamError("refused", { httpStatus: 400 });
      return jobIds.map((jobId) => ({ jobId, status: "RUNNING" }) as JobDetail);
    };
    const batcher = createDescribeJobsBatcher({ describe, windowMs: 5 });
    const ids = [...Array.from({ length: 99 }, (_, index) => `job-${index}`), "bad"];
    const results = await Promise.allSettled(ids.map((id) => batcher.load(id)));
    expect(results.filter((result) => result.status === "rejected")).toHaveLength(1);
    expect(calls.length).toBeLessThanOrEqual(1 + 2 * Math.ceil(Math.log2(100)));
  });

  it("does not split a batch for a refusal no id can cause (AccessDeniedException)", async () => {
    const calls: string[][] = [];
    const refusal = new UpstreamError("denied", {
      httpStatus: 403,
      cause: Object.assign(new Error("no"), { name: "AccessDeniedException" }),
    });
    const batcher = createDescribeJobsBatcher({
      describe: async (jobIds) => {
        calls.push(jobIds);
        throw refusal;
      },
      windowMs: 5,
    });
    await Promise.allSettled([batcher.load("a"), batcher.load("b"), batcher.load("c")]);
    expect(calls).toHaveLength(1);
  });

  it("does not split a batch for a retryable failure (throttling, outage): every read gets it once", async () => {
    let calls = 0;
    const failure = new UpstreamError("busy", { httpStatus: 503 });
    const batcher = createDescribeJobsBatcher({
      describe: () => {
        calls += 1;
        return Promise.reject(failure);
      },
      windowMs: 5,
    });
    await Promise.allSettled([batcher.load("a"), batcher.load("b")]);
    expect(calls).toBe(1);
  });

  it("starts a new batch after one was sent", async () => {
    const upstream = recordingDescribe();
    const batcher = createDescribeJobsBatcher({ describe: upstream.describe, windowMs: 1 });
    await batcher.load("a");
    await batcher.load("b");
    expect(upstream.calls).toEqual([["a"], ["b"]]);
  });

  it("lets one caller give up without failing the others", async () => {
    const upstream = recordingDescribe();
    const batcher = createDescribeJobsBatcher({ describe: upstream.describe, windowMs: 20 });
    const controller = new AbortController();
    const abandoned = batcher.load("a", controller.signal);
    const kept = batcher.load("b");
    controller.abort(new Error("client went away"));
    await expect(abandoned).rejects.toThrow("client went away");
    await expect(kept).resolves.toMatchObject({ jobId: "b" });
  });
});
