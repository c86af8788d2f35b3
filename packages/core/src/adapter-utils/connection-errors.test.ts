import { describe, expect, it } from "vitest";
import { OutcomeUnknownError, UpstreamError } from "../errors.js";
import { connectionErrorCode, mayHaveActed, withoutConnectionDetails } from "./connection-errors.js";

const withCode = (code: unknown, cause?: unknown) =>
  Object.assign(new Error("connect ECONNREFUSED 10.0.0.7:443"), { code }, cause ? { cause } : {});

describe("connection errors", () => {
  it("finds the system code along the causes, skipping codes of another shape", () => {
    const fetchFailed = new TypeError("fetch failed", { cause: withCode("not a code", withCode("ECONNRESET")) });
    expect(connectionErrorCode(fetchFailed)).toBe("ECONNRESET");
    expect(connectionErrorCode(new Error("plain"))).toBeUndefined();
  });

  it("keeps of a connection error its code, else its class's name: nothing that names the host", () => {
    const kept = withoutConnectionDetails(withCode("ECONNREFUSED"));
    expect(kept.message).toBe("ECONNREFUSED");
    expect(kept).not.toHaveProperty("cause");
    expect(withoutConnectionDetails(new TypeError("fetch failed: 10.0.0.7")).message).toBe("TypeError");
    expect(withoutConnectionDetails("text").message).toBe("network error");
  });

  it("mayHaveActed is a non-retryable OutcomeUnknownError with the status and cause given", () => {
    const lost = new UpstreamError("HTTP 502", { httpStatus: 502 });
    const error = mayHaveActed("a job may exist: look before submitting again", { httpStatus: 502, cause: lost });
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error).toMatchObject({ isRetryable: false, httpStatus: 502, cause: lost });
    expect(mayHaveActed("no answer")).toMatchObject({ isRetryable: false, httpStatus: undefined, cause: undefined });
  });
});
