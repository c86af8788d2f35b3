import { describe, expect, it } from "vitest";
import { TemplateValueError } from "./template.js";
import { ForeignOriginError, buildUrl } from "./url-builder.js";

const policy = {
  baseUrl: new URL("https://jobs.example.test/api/v1"),
  allowedOrigins: new Set(["https://status.example.test"]),
};

describe("job URL with a suffix ({{job.id}}:cancel)", () => {
  it("appends the suffix to the path of a job URL that is an absolute path, keeping its query", () => {
    const url = buildUrl(policy, "{{job.id}}:cancel", undefined, {
      job: { id: "/api/v1/operations/op-1?api-version=2026-10-01" },
    });
    expect(url.href).toBe("https://jobs.example.test/api/v1/operations/op-1:cancel?api-version=2026-10-01");
  });

  it("appends it to a whole URL on an allowed origin, and still refuses other origins", () => {
    const url = buildUrl(
      policy,
      "{{job.id}}/cancel",
      { reason: "{{job.reason}}" },
      { job: { id: "https://status.example.test/ops/7?x=1", reason: "user" } },
    );
    expect(url.href).toBe("https://status.example.test/ops/7/cancel?x=1&reason=user");
    expect(() =>
      buildUrl(policy, "{{job.id}}:cancel", undefined, { job: { id: "https://evil.example.test/ops/7" } }),
    ).toThrow(ForeignOriginError);
  });

  it("keeps a plain job id one encoded segment under baseUrl, as before", () => {
    expect(buildUrl(policy, "{{job.id}}/output", undefined, { job: { id: "a/b" } }).pathname).toBe(
      "/api/v1/a%2Fb/output",
    );
  });

  it("refuses a suffix that would climb out of the job's URL", () => {
    expect(() =>
      buildUrl(policy, "{{job.id}}/../admin", undefined, { job: { id: "/api/v1/operations/op-1" } }),
    ).toThrow(TemplateValueError);
  });
});
