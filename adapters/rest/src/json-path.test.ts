import { AdapterConfigError } from "@jobtasks/core";
import { afterEach, describe, expect, it } from "vitest";
import { pathSyntaxProblem, queryAll, queryFirst } from "./json-path.js";
import { restAdapter } from "./rest-adapter.js";
import { createTestContext } from "@jobtasks/testkit";
import { mockAgent } from "./test-support/mock-agent.js";

const agent = mockAgent();
const demoOrigin = "http://127.0.0.1:4010";
afterEach(() => agent.assertNoPendingInterceptors());

describe("JSONPath over upstream answers", () => {
  it("treats upstream data a filter cannot read as no match, never as a configuration error", () => {
    const path = "steps[?(@.status=='running')].name";
    expect(
      queryAll(path, {
        steps: [
          { status: "done", name: "test" },
          { status: "running", name: "build" },
        ],
      }),
    ).toEqual(["build"]);
    // An item the filter cannot read is skipped; it does not hide the items it can.
    expect(queryAll(path, { steps: [null, 5, { status: "running", name: "build" }] })).toEqual(["build"]);
    expect(
      queryAll("steps[?(@.status=='cancelled')].name", {
        steps: [{ status: "done", name: "a" }, null, { status: "cancelled", name: "b" }],
      }),
    ).toEqual(["b"]);
    expect(queryFirst(path, { steps: "oops" })).toBeUndefined();
  });

  it("keeps a demo-api job working when its steps hold nulls, and completes one whose steps are not a list", async () => {
    agent
      .get(demoOrigin)
      .intercept({ path: "/jobs/j1" })
      .reply(200, { status: "running", currentStep: 1, totalSteps: 2, steps: [null, 5] });
    const adapter = restAdapter({ preset: "demo-api", baseUrl: demoOrigin }, { dispatcher: agent });
    await expect(adapter.doGetStatus({ id: "j1", createdAt: 0 }, createTestContext())).resolves.toMatchObject({
      status: "working",
      rawStatus: "running",
    });
    agent
      .get(demoOrigin)
      .intercept({ path: "/jobs/j1" })
      .reply(200, { status: "failed", name: "p", steps: "oops", logs: 7 });
    await expect(adapter.doGetStatus({ id: "j1", createdAt: 0 }, createTestContext())).resolves.toMatchObject({
      status: "completed",
      result: { isError: true },
    });
  });

  it("finds a path's syntax error without any upstream data", () => {
    expect(pathSyntaxProblem("steps[?(@.status=='running' && @.a.b > 3)].name")).toBeUndefined();
    expect(pathSyntaxProblem("logs[-20:]")).toBeUndefined();
    expect(pathSyntaxProblem("steps[?(@.status==)].name")).toMatch(/Expected expression/);
    expect(pathSyntaxProblem("$..[?(undefinedFunction(@))]")).toBeDefined();
  });

  it("refuses a path with a syntax error when the adapter is built, naming the field", () => {
    const build = (options: object) => () => restAdapter({ preset: "demo-api", baseUrl: demoOrigin, ...options });
    expect(build({ progress: { message: "step {{body.steps[?(@.status==)].name}}" } })).toThrow(AdapterConfigError);
    expect(build({ progress: { message: "step {{body.steps[?(@.status==)].name}}" } })).toThrow(/progress\.message/);
    expect(build({ result: { fields: { failedStep: "steps[?(@.status==)].name" } } })).toThrow(
      /result\.fields\.failedStep/,
    );
  });
});
