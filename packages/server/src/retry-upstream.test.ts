import { describe, expect, it } from "vitest";
import { UpstreamError } from "@jobtasks/core";
import { retryUpstream } from "./retry-upstream.js";

/** An upstream call that fails as scripted, then answers "ok", noting when each attempt began and ended. */
function scriptedCall(failures: UpstreamError[]) {
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

const signal = () => new AbortController().signal;
const quick = { immediateRetries: 2, immediateRetryDelayMs: 1 };

describe("retryUpstream", () => {
  it("sends no retry before a 429's Retry-After has elapsed", async () => {
    const { attempts, operation } = scriptedCall([
      new UpstreamError("HTTP 429", { httpStatus: 429, retryAfterMs: 1_000 }),
    ]);
    await expect(retryUpstream(operation, signal(), quick)).resolves.toBe("ok");
    expect(attempts).toHaveLength(2);
    expect(attempts[1]!.startedAt - attempts[0]!.endedAt).toBeGreaterThanOrEqual(1_000);
  });

  it("waits out a Retry-After on a 503 too, and the back-off between plain failures stays short", async () => {
    const { attempts, operation } = scriptedCall([
      new UpstreamError("HTTP 502", { httpStatus: 502 }),
      new UpstreamError("HTTP 503", { httpStatus: 503, retryAfterMs: 300 }),
    ]);
    await expect(retryUpstream(operation, signal(), quick)).resolves.toBe("ok");
    expect(attempts).toHaveLength(3);
    expect(attempts[2]!.startedAt - attempts[1]!.endedAt).toBeGreaterThanOrEqual(300);
  });

  it("does not retry within the read when the Retry-After is longer than a quick retry may wait", async () => {
    const throttled = new UpstreamError("HTTP 429", { httpStatus: 429, retryAfterMs: 5_000 });
    const { attempts, operation } = scriptedCall([throttled]);
    await expect(retryUpstream(operation, signal(), quick)).rejects.toBe(throttled);
    expect(attempts).toHaveLength(1);
  });

  it("stops waiting out a Retry-After when the read is aborted", async () => {
    const { attempts, operation } = scriptedCall([
      new UpstreamError("HTTP 429", { httpStatus: 429, retryAfterMs: 2_000 }),
    ]);
    const controller = new AbortController();
    const reading = retryUpstream(operation, controller.signal, quick);
    setTimeout(() => controller.abort(new Error("client went away")), 50);
    await expect(reading).rejects.toThrow("client went away");
    expect(attempts).toHaveLength(1);
  });

  it("does not retry within the read when the Retry-After exceeds what the read has left", async () => {
    const throttled = new UpstreamError("HTTP 429", { httpStatus: 429, retryAfterMs: 1_500 });
    const { attempts, operation } = scriptedCall([throttled]);
    await expect(retryUpstream(operation, signal(), { ...quick, readTimeoutMs: 1_000 })).rejects.toBe(throttled);
    expect(attempts).toHaveLength(1);
  });

  it("reports the Retry-After of the last attempt: a throttled end keeps it, a success clears it", async () => {
    const throttled = new UpstreamError("HTTP 429", { httpStatus: 429, retryAfterMs: 60_000 });
    const reported: Array<number | undefined> = [];
    const reportRetryAfter = (retryAfterMs: number | undefined) => reported.push(retryAfterMs);
    await expect(
      retryUpstream(scriptedCall([throttled]).operation, signal(), { ...quick, reportRetryAfter }),
    ).rejects.toBe(throttled);
    expect(reported).toEqual([60_000]);
    reported.length = 0;
    const outage = new UpstreamError("HTTP 503", { httpStatus: 503, retryAfterMs: 5 });
    const plain = new UpstreamError("HTTP 502", { httpStatus: 502 });
    await expect(
      retryUpstream(scriptedCall([outage, plain]).operation, signal(), { ...quick, reportRetryAfter }),
    ).resolves.toBe("ok");
    expect(reported).toEqual([5, undefined, undefined]);
  });
});
