import { UpstreamError } from "@jobtasks/core";
import { describe, expect, it } from "vitest";
import { waitAfterAcceptance } from "./wait-after-acceptance.js";

describe("waitAfterAcceptance", () => {
  it("ends as 'not found' when the start's deadline fires inside a read that hangs", async () => {
    const deadline = new AbortController();
    let reads = 0;
    const outcome = await waitAfterAcceptance(
      () => {
        reads += 1;
        if (reads === 1)
          return Promise.reject(
            new UpstreamError("GitHub answered HTTP 503 while trying to read run 42", {
              httpStatus: 503,
              isRetryable: true,
            }),
          );
        // The second read never answers; the deadline ends it.
        setImmediate(() => deadline.abort(new DOMException("The operation timed out", "TimeoutError")));
        return new Promise<undefined>((_resolve, reject) =>
          deadline.signal.addEventListener("abort", () => reject(deadline.signal.reason), { once: true }),
        );
      },
      { timeoutMs: 60_000, initialMs: 1, signal: deadline.signal },
    );
    expect(outcome.found).toBeUndefined();
    expect(outcome).toMatchObject({ lastError: { message: "GitHub answered HTTP 503 while trying to read run 42" } });
  });

  it("ends as 'not found' when the deadline fires during a pause between reads", async () => {
    const deadline = new AbortController();
    const outcome = await waitAfterAcceptance(
      async () => {
        setImmediate(() => deadline.abort(new DOMException("The operation timed out", "TimeoutError")));
        return undefined;
      },
      { timeoutMs: 60_000, initialMs: 30_000, signal: deadline.signal },
    );
    expect(outcome).toEqual({ found: undefined, lastError: new Error("GitHub did not answer in time") });
  });
});
