import { describe, expect, it } from "vitest";
import {
  TemplateValueError,
  parseTemplate,
  renderHeaderValue,
  renderJson,
  renderPath,
  renderScalar,
  renderText,
} from "./template.js";
import { buildUrl } from "./url-builder.js";

const policy = { baseUrl: new URL("https://jobs.example.test/api/v1"), allowedOrigins: new Set<string>() };

describe("templates", () => {
  it("splits literals and placeholders, including the multi-segment form", () => {
    expect(parseTemplate("/jobs/{{ job.id }}/x{{*input.name}}")).toEqual([
      { kind: "literal", text: "/jobs/" },
      { kind: "value", path: "job.id", multiSegment: false },
      { kind: "literal", text: "/x" },
      { kind: "value", path: "input.name", multiSegment: true },
    ]);
  });

  it("encodes a path value as one segment, so slashes, queries and fragments stay inside it", () => {
    const context = { input: { name: "a/b?admin=1#frag" } };
    expect(renderPath("/jobs/{{input.name}}", context)).toBe("/jobs/a%2Fb%3Fadmin%3D1%23frag");
    const url = buildUrl(policy, "/jobs/{{input.name}}", undefined, context);
    expect(url.origin).toBe("https://jobs.example.test");
    expect(url.pathname).toBe("/api/v1/jobs/a%2Fb%3Fadmin%3D1%23frag");
    expect(url.search).toBe("");
  });

  it.each([[".."], ["."], [""]])("refuses the dot segment %j that URL parsing would fold away", (value) => {
    expect(() => renderPath("/jobs/{{input.name}}/run", { input: { name: value } })).toThrow(TemplateValueError);
  });

  it("refuses dot segments hidden inside a multi-segment value", () => {
    expect(() => renderPath("{{*job.id}}", { job: { id: "operations/../../admin" } })).toThrow(TemplateValueError);
    expect(renderPath("{{*job.id}}:cancel", { job: { id: "operations/op 1" } })).toBe("operations/op%201:cancel");
  });

  it("cannot be moved to another host by a value that looks like a URL or a protocol-relative path", () => {
    for (const name of ["//evil.example/x", "https://evil.example/", "@evil.example", "%2e%2e"]) {
      const url = buildUrl(policy, "/jobs/{{input.name}}", undefined, { input: { name } });
      expect(url.host).toBe("jobs.example.test");
      expect(url.pathname.startsWith("/api/v1/jobs/")).toBe(true);
    }
  });

  it("refuses objects in a URL and requires path values", () => {
    expect(() => renderPath("/jobs/{{input.name}}", { input: { name: { a: 1 } } })).toThrow(/expected a string/);
    expect(() => renderPath("/jobs/{{input.name}}", { input: {} })).toThrow(/required/);
  });

  it("encodes query values so a value cannot add a parameter", () => {
    const url = buildUrl(
      policy,
      "/jobs",
      { filter: "{{input.filter}}", absent: "{{input.none}}" },
      { input: { filter: "x&admin=true" } },
    );
    expect([...url.searchParams.entries()]).toEqual([["filter", "x&admin=true"]]);
  });

  it("refuses control characters in header values (no header splitting)", () => {
    expect(() => renderHeaderValue("{{input.v}}", { input: { v: "ok\r\nX-Admin: 1" } })).toThrow(TemplateValueError);
    expect(renderHeaderValue("tenant-{{input.v}}", { input: { v: "blue" } })).toBe("tenant-blue");
    expect(renderHeaderValue("{{input.missing}}", { input: {} })).toBeUndefined();
  });

  it("builds JSON bodies structurally: types kept, absent values left out, no way to add a key", () => {
    const body = renderJson(
      {
        steps: "{{input.steps}}",
        label: "run {{input.name}}",
        nested: { flag: "{{input.flag}}", gone: "{{input.none}}" },
        list: ["{{input.name}}", "{{input.none}}"],
        fixed: 3,
      },
      { input: { steps: 4, flag: false, name: '", "admin": true, "x": "' } },
    );
    expect(body).toEqual({
      steps: 4,
      label: 'run ", "admin": true, "x": "',
      nested: { flag: false },
      list: ['", "admin": true, "x": "'],
      fixed: 3,
    });
    expect(Object.keys(JSON.parse(JSON.stringify(body)) as object)).toEqual([
      "steps",
      "label",
      "nested",
      "list",
      "fixed",
    ]);
  });

  it("passes the whole input through as the body", () => {
    expect(renderJson("{{input}}", { input: { a: 1, b: [true] } })).toEqual({ a: 1, b: [true] });
  });

  it("renders text with JSONPath filters, and says when a value is missing", () => {
    const body = {
      currentStep: 2,
      totalSteps: 5,
      steps: [
        { name: "build", status: "succeeded" },
        { name: "test", status: "running" },
      ],
    };
    expect(
      renderText("step {{body.currentStep}}/{{body.totalSteps}}: {{body.steps[?(@.status=='running')].name}}", {
        body,
      }),
    ).toBe("step 2/5: test");
    expect(renderText("{{body.nothing}}", { body })).toBeUndefined();
    expect(renderScalar("{{body.currentStep}}", { body })).toBe("2");
  });
});
