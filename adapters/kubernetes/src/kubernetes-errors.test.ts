import { UpstreamError } from "@jobtasks/core";
import { describe, expect, it } from "vitest";
import { toUpstreamError } from "./kubernetes-errors.js";

const attempt = { verb: "create" as const, resource: "jobs", namespace: "ml", actor: "the service account" };
/** What the client's ApiException carries: the status, the Status body, the headers. */
const apiException = (code: number, body?: unknown, headers: Record<string, string> = {}) =>
  Object.assign(new Error(`HTTP-Code: ${code}\nHeaders: {"server":"https://10.0.0.1:6443"}`), { code, body, headers });

describe("toUpstreamError", () => {
  it("names the namespace and the verb of a 403 and a 401, and never retries them", () => {
    const forbidden = toUpstreamError(apiException(403, { reason: "Forbidden" }), attempt);
    expect(forbidden.message).toBe(
      'the service account cannot create jobs in namespace ml (403 Forbidden): grant "create" on jobs in a Role bound to it (see the Kubernetes adapter\'s README)',
    );
    expect([forbidden.isRetryable, forbidden.isThrottled]).toEqual([false, false]);
    const unauthorized = toUpstreamError(apiException(401), attempt);
    expect(unauthorized.message).toMatch(
      /^the Kubernetes API refused the credentials of the service account \(401 Unauthorized\) to create jobs in namespace ml/,
    );
    expect(unauthorized.isRetryable).toBe(false);
  });

  it("says what an Invalid object's causes are, and keeps the request's details out", () => {
    const invalid = toUpstreamError(
      apiException(422, {
        reason: "Invalid",
        details: {
          causes: [
            { field: "spec.template.spec.containers[0].resources.limits[memory]", message: 'Invalid value: "32 Gi"' },
          ],
        },
      }),
      attempt,
    );
    expect(invalid.message).toBe(
      'Kubernetes answered 422 Invalid to create jobs in namespace ml: spec.template.spec.containers[0].resources.limits[memory]: Invalid value: "32 Gi"',
    );
    expect(invalid.isRetryable).toBe(false);
    expect(JSON.stringify(invalid) + invalid.stack).not.toContain("10.0.0.1");
  });

  it("keeps a 429's Retry-After and a 5xx retryable", () => {
    const throttled = toUpstreamError(
      apiException(429, { reason: "TooManyRequests" }, { "retry-after": "3" }),
      attempt,
    );
    expect([throttled.isRetryable, throttled.retryAfterMs]).toEqual([true, 3000]);
    expect(toUpstreamError(apiException(503, "etcdserver: request timed out"), attempt).isRetryable).toBe(true);
  });

  it("reports a connection failure by its code only", () => {
    const refused = toUpstreamError(
      Object.assign(new TypeError("fetch failed"), {
        cause: Object.assign(new Error("connect ECONNREFUSED 10.0.0.1:6443"), { code: "ECONNREFUSED" }),
      }),
      attempt,
    );
    expect(refused).toBeInstanceOf(UpstreamError);
    expect(refused.message).toBe("the Kubernetes API did not answer (ECONNREFUSED) to create jobs in namespace ml");
    expect(refused.isRetryable).toBe(true);
    expect(JSON.stringify(refused) + String(refused.stack) + String((refused.cause as Error).message)).not.toContain(
      "10.0.0.1",
    );
  });
});
