import { describe, expect, it } from "vitest";
import { UpstreamError } from "../errors.js";
import { retryWithBackoff } from "./retry-with-backoff.js";

/** An operation that fails as scripted, then answers "ok", noting when each attempt began and ended. */
function scripted(failures: unknown[]) {
  const attempts: { startedAt: number; endedAt: number }[] = [];
  const operation = async (): Promise<string> => {
    const startedAt = performance.now();
    const failure = failures[attempts.length];
    attempts.push({ startedAt, endedAt: performance.now() });
    if (failure) throw failure;
    return "ok";
  };
  return { attempts, operation };
}

const quick = { maxAttempts: 3, backoffMs: () => 1 };
const outage = () => new UpstreamError("HTTP 503", { httpStatus: 503 });

describe("retryWithBackoff", () => {
  it("retries a retryable UpstreamError until it succeeds, within maxAttempts", async () => {
    const { attempts, operation } = scripted([outage(), outage()]);
    await expect(retryWithBackoff(operation, quick)).resolves.toBe("ok");
    expect(attempts).toHaveLength(3);
  });

  it("throws the last failure as it is once maxAttempts calls failed", async () => {
    const last = outage();
    const { attempts, operation } = scripted([outage(), outage(), last]);
    await expect(retryWithBackoff(operation, quick)).rejects.toBe(last);
    expect(attempts).toHaveLength(3);
  });

  it("does not retry what shouldRetry refuses (by default: anything but a retryable UpstreamError)", async () => {
    const refused = new UpstreamError("HTTP 403", { httpStatus: 403 });
    const plain = new Error("a bug");
    for (const failure of [refused, plain]) {
      const { attempts, operation } = scripted([failure]);
      await expect(retryWithBackoff(operation, quick)).rejects.toBe(failure);
      expect(attempts).toHaveLength(1);
    }
    const { attempts, operation } = scripted([plain]);
    await expect(retryWithBackoff(operation, { ...quick, shouldRetry: (error) => error === plain })).resolves.toBe(
      "ok",
    );
    expect(attempts).toHaveLength(2);
  });

  it("waits at least the Retry-After, even when the back-off is shorter", async () => {
    const { attempts, operation } = scripted([new UpstreamError("HTTP 429", { httpStatus: 429, retryAfterMs: 200 })]);
    await expect(retryWithBackoff(operation, quick)).resolves.toBe("ok");
    expect(attempts[1]!.startedAt - attempts[0]!.endedAt).toBeGreaterThanOrEqual(200);
  });

  it("waits the back-off when it is longer than the Retry-After, and hands it the attempt and the Retry-After", async () => {
    const asked: Array<[number, number | undefined]> = [];
    const { attempts, operation } = scripted([
      outage(),
      new UpstreamError("HTTP 429", { httpStatus: 429, retryAfterMs: 5 }),
    ]);
    const backoffMs = (attempt: number, retryAfterMs: number | undefined) => {
      asked.push([attempt, retryAfterMs]);
      return 100;
    };
    await expect(retryWithBackoff(operation, { maxAttempts: 3, backoffMs })).resolves.toBe("ok");
    expect(asked).toEqual([
      [1, undefined],
      [2, 5],
    ]);
    expect(attempts[2]!.startedAt - attempts[1]!.endedAt).toBeGreaterThanOrEqual(100);
  });

  it("ends the retries on a Retry-After longer than maxRetryAfterMs", async () => {
    const throttled = new UpstreamError("HTTP 429", { httpStatus: 429, retryAfterMs: 30_000 });
    const { attempts, operation } = scripted([throttled]);
    await expect(retryWithBackoff(operation, { ...quick, maxRetryAfterMs: 5_000 })).rejects.toBe(throttled);
    expect(attempts).toHaveLength(1);
  });

  it("reports each attempt's Retry-After as it ends: the last report is what the upstream asked last", async () => {
    const reported: Array<number | undefined> = [];
    const reportRetryAfter = (retryAfterMs: number | undefined) => reported.push(retryAfterMs);
    const { operation } = scripted([new UpstreamError("HTTP 503", { httpStatus: 503, retryAfterMs: 5 }), outage()]);
    await expect(retryWithBackoff(operation, { ...quick, reportRetryAfter })).resolves.toBe("ok");
    expect(reported).toEqual([5, undefined, undefined]);
  });

  it("tells onRetry about each retry and its wait", async () => {
    const retries: Array<{ attempt: number; waitMs: number }> = [];
    const { operation } = scripted([outage()]);
    await retryWithBackoff(operation, {
      maxAttempts: 2,
      backoffMs: () => 3,
      onRetry: ({ attempt, waitMs }) => retries.push({ attempt, waitMs }),
    });
    expect(retries).toEqual([{ attempt: 1, waitMs: 3 }]);
  });

  it("ends with the signal's reason during a wait, and abandons a call that ignores the signal", async () => {
    const controller = new AbortController();
    const { attempts, operation } = scripted([new UpstreamError("HTTP 429", { httpStatus: 429, retryAfterMs: 2_000 })]);
    const waiting = retryWithBackoff(operation, { ...quick, signal: controller.signal });
    setTimeout(() => controller.abort(new Error("client went away")), 30);
    await expect(waiting).rejects.toThrow("client went away");
    expect(attempts).toHaveLength(1);

    const hanging = new AbortController();
    const reported: Array<number | undefined> = [];
    const stuck = retryWithBackoff(() => new Promise<never>(() => undefined), {
      ...quick,
      signal: hanging.signal,
      reportRetryAfter: (retryAfterMs) => reported.push(retryAfterMs),
    });
    hanging.abort(new Error("deadline"));
    await expect(stuck).rejects.toThrow("deadline");
    expect(reported).toEqual([]);
  });
});
