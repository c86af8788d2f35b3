import { describe, expect, it } from "vitest";
import {
  AdapterConfigError,
  AnswersPartlySettledError,
  ConfigError,
  JobNotFoundError,
  JobtasksError,
  OutcomeUnknownError,
  UpstreamError,
  isRetryableHttpStatus,
  parseRetryAfter,
} from "./errors.js";

describe("error classes", () => {
  it("keep their class hierarchy for instanceof", () => {
    const error = new AdapterConfigError("token", "is required");
    expect(error).toBeInstanceOf(AdapterConfigError);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toBeInstanceOf(JobtasksError);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(UpstreamError);
    expect(error.name).toBe("AdapterConfigError");
    expect(error.message).toBe("Invalid configuration at token: is required");
  });

  it("are recognised when made by another copy of the package (same brands, other classes)", () => {
    const brand = Symbol.for("@jobtasks/core/error-brands");
    const foreign = Object.assign(new Error("HTTP 503"), {
      [brand]: ["UpstreamError", "JobtasksError"],
      isRetryable: true,
    });
    expect(foreign).toBeInstanceOf(UpstreamError);
    expect(foreign).toBeInstanceOf(JobtasksError);
    expect(foreign).not.toBeInstanceOf(JobNotFoundError);
    expect(new Error("plain")).not.toBeInstanceOf(UpstreamError);
  });

  it("mark a failure the upstream may have acted on without changing what it says", () => {
    const cause = new Error("socket hang up");
    const lost = new UpstreamError("the submit request failed before an answer arrived", {
      httpStatus: 503,
      retryAfterMs: 2_000,
      cause,
    });
    const marked = OutcomeUnknownError.from(lost);
    expect(marked).toBeInstanceOf(OutcomeUnknownError);
    expect(marked).toBeInstanceOf(UpstreamError);
    expect(marked).toMatchObject({
      name: "OutcomeUnknownError",
      message: lost.message,
      httpStatus: 503,
      isRetryable: true,
      retryAfterMs: 2_000,
      isThrottled: false,
      cause,
    });
    expect(OutcomeUnknownError.from(marked)).toBe(marked);
    expect(lost).not.toBeInstanceOf(OutcomeUnknownError);
  });

  it("carry the answers a delivery settled before it failed, saying what the failure says", () => {
    const refusal = new UpstreamError("GitLab refused the approval of the deployment", { httpStatus: 400 });
    const keys = ["play-job-1"];
    const error = new AnswersPartlySettledError(keys, refusal);
    keys.push("changed later");
    expect(error).toBeInstanceOf(JobtasksError);
    expect(error).not.toBeInstanceOf(UpstreamError);
    expect(error.settledKeys).toEqual(["play-job-1"]);
    expect(error.cause).toBe(refusal);
    expect(error.message).toBe("GitLab refused the approval of the deployment");
  });

  it("derive retryability from the HTTP status unless told", () => {
    expect(new UpstreamError("x", { httpStatus: 503 }).isRetryable).toBe(true);
    expect(new UpstreamError("x", { httpStatus: 429 }).isRetryable).toBe(true);
    expect(new UpstreamError("x", { httpStatus: 404 }).isRetryable).toBe(false);
    expect(new UpstreamError("x", { httpStatus: 404, isRetryable: true }).isRetryable).toBe(true);
    expect(new UpstreamError("network down").isRetryable).toBe(true);
  });

  it("call a rate limit throttling, not an outage", () => {
    expect(new UpstreamError("x", { httpStatus: 429 }).isThrottled).toBe(true);
    expect(new UpstreamError("x", { httpStatus: 403, retryAfterMs: 60_000 }).isThrottled).toBe(true);
    expect(new UpstreamError("x", { httpStatus: 403 }).isThrottled).toBe(false);
    expect(new UpstreamError("x", { httpStatus: 503, retryAfterMs: 1_000 }).isThrottled).toBe(false);
    expect(new UpstreamError("TooManyRequestsException", { isThrottled: true }).isThrottled).toBe(true);
    expect([408, 425, 429, 500, 502, 599].every(isRetryableHttpStatus)).toBe(true);
    expect([400, 401, 403, 404, 409, 422].some(isRetryableHttpStatus)).toBe(false);
  });
});

describe("parseRetryAfter", () => {
  it("reads seconds and HTTP dates", () => {
    const now = Date.UTC(2026, 10, 29, 12, 0, 0);
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter("1.5", now)).toBe(1500);
    expect(parseRetryAfter("Sun, 29 Nov 2026 12:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Sun, 29 Nov 2026 11:00:00 GMT", now)).toBe(0);
    for (const value of [undefined, null, "", "soon", "-5"]) expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});

describe("brands", () => {
  it("every error class the core exports declares a brand of its own, equal to its name", async () => {
    const core: Record<string, unknown> = await import("./index.js");
    const classes = Object.entries(core).filter(
      ([, value]) =>
        typeof value === "function" && (value === JobtasksError || value.prototype instanceof JobtasksError),
    );
    expect(classes.length).toBeGreaterThan(5);
    for (const [name, type] of classes) {
      expect(Object.hasOwn(type as object, "brand"), `${name} declares static brand`).toBe(true);
      expect((type as { brand: string }).brand).toBe(name);
    }
  });
});
