import { describe, expect, it } from "vitest";
import { AdapterConfigError } from "@jobtasks/core";
import { demoAdapter, type DemoAdapterOptions } from "./demo-adapter.js";
import { adapterDefinition } from "./adapter-definition.js";

function configError(options: unknown): AdapterConfigError {
  try {
    demoAdapter(options as DemoAdapterOptions);
  } catch (error) {
    if (error instanceof AdapterConfigError) return error;
    throw error;
  }
  throw new Error("expected an AdapterConfigError");
}

describe("demo adapter options", () => {
  it("has documented defaults", () => {
    const adapter = demoAdapter({ baseUrl: "http://127.0.0.1:4010" });
    expect(adapter).toMatchObject({
      specificationVersion: "v1",
      kind: "demo",
      pollIntervalMs: 1000,
      retentionMs: 86_400_000,
    });
    expect(adapter.tools.map((tool) => tool.name)).toEqual(["demo_pipeline"]);
  });

  it.each([
    [{}, "baseUrl", "Invalid configuration at baseUrl: required: the demo API's URL"],
    [{ baseUrl: "   " }, "baseUrl", "required"],
    [{ baseUrl: 4010 }, "baseUrl", "expected a string"],
    // Without a scheme the host reads as one.
    [{ baseUrl: "localhost:4010" }, "baseUrl", "must be an http or https URL, got localhost:; expected the demo API"],
    [{ baseUrl: "not a url" }, "baseUrl", "not a valid URL; expected the demo API's URL"],
    [{ baseUrl: "ftp://127.0.0.1" }, "baseUrl", "must be an http or https URL, got ftp:"],
    [{ baseUrl: "http://127.0.0.1", pollIntervalMs: 0 }, "pollIntervalMs", "positive integer"],
    [{ baseUrl: "http://127.0.0.1", pollIntervalMs: 2.5 }, "pollIntervalMs", "positive integer"],
    [{ baseUrl: "http://127.0.0.1", pollIntervalMs: "fast" }, "pollIntervalMs", "positive integer"],
    [{ baseUrl: "http://127.0.0.1", toolName: "run pipeline" }, "toolName", "1 to 128 characters"],
    [{ baseUrl: "http://127.0.0.1", fetch: "curl" }, "fetch", "fetch-compatible"],
    // Misspelt options are refused, not ignored: the adapter would otherwise run on a default.
    [{ baseUrl: "http://127.0.0.1", pollintervalMs: 500 }, "options", 'Unrecognized key: "pollintervalMs"'],
  ])("refuses %j, naming the option", (options, option, text) => {
    const error = configError(options);
    expect(error.option).toBe(option);
    expect(error.message).toContain(text);
  });

  it("does not repeat an unparseable URL, which may hold a password", () => {
    const error = configError({ baseUrl: "http://robot:s3cret-value@[not-a-host" });
    expect(error.message).toContain("not a valid URL");
    expect(JSON.stringify({ message: error.message, stack: error.stack, cause: String(error.cause) })).not.toContain(
      "s3cret-value",
    );
  });
});

describe("adapterDefinition", () => {
  it("validates the config file's options block and builds the adapter", () => {
    expect(adapterDefinition.kind).toBe("demo");
    const options = adapterDefinition.optionsSchema.parse({
      baseUrl: "http://127.0.0.1:4010",
      pollIntervalMs: 500,
      toolName: "ci_demo",
    });
    const adapter = adapterDefinition.create(options);
    expect(adapter.kind).toBe("demo");
    expect(adapter.pollIntervalMs).toBe(500);
    expect(adapter.tools.map((tool) => tool.name)).toEqual(["ci_demo"]);
  });

  it("fills in the documented defaults", () => {
    expect(adapterDefinition.optionsSchema.parse({ baseUrl: "http://127.0.0.1:4010" })).toEqual({
      baseUrl: "http://127.0.0.1:4010",
      pollIntervalMs: 1000,
      toolName: "demo_pipeline",
    });
  });

  it("is the schema the adapter validates with, so the command and the code refuse the same options", () => {
    const options = { baseUrl: "http://127.0.0.1", toolName: "run pipeline" };
    const issue = adapterDefinition.optionsSchema.safeParse(options).error?.issues[0];
    expect(issue?.path).toEqual(["toolName"]);
    expect(configError(options).message).toBe(`Invalid configuration at toolName: ${issue?.message}`);
  });

  it.each([
    [{}, "baseUrl"],
    [{ baseUrl: "not a url" }, "baseUrl"],
    [{ baseUrl: "file:///etc/passwd" }, "baseUrl"],
    [{ baseUrl: "http://127.0.0.1", pollIntervalMs: -1 }, "pollIntervalMs"],
    [{ baseUrl: "http://127.0.0.1", toolName: "run pipeline" }, "toolName"],
    [{ baseUrl: "http://127.0.0.1", baseURL: "typo" }, ""],
  ])("refuses %j with an issue at %s", (options, path) => {
    const result = adapterDefinition.optionsSchema.safeParse(options);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path.join(".")).toBe(path);
  });
});
