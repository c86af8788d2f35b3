import { describe, expect, it } from "vitest";
import { z } from "./zod.js";
import { configErrorFromIssues, describeConfigIssues, optionNameOf } from "./config-issues.js";
import { AdapterConfigError, ConfigError } from "./errors.js";

const optionsSchema = z.object({
  baseUrl: z.url(),
  app: z.object({ appId: z.string() }).optional(),
  jobs: z.array(z.object({ url: z.string() })).optional(),
});

function failedParse(value: unknown): z.ZodError {
  const parsed = optionsSchema.safeParse(value);
  if (parsed.success) throw new Error("expected the parse to fail");
  return parsed.error;
}

describe("optionNameOf", () => {
  it("names nested options with dots and array entries with brackets", () => {
    expect(optionNameOf(["app", "appId"])).toBe("app.appId");
    expect(optionNameOf(["jobs", 0, "url"])).toBe("jobs[0].url");
    expect(optionNameOf(["baseUrl"], "adapters[1].options")).toBe("adapters[1].options.baseUrl");
  });

  it("names the block itself by its prefix, or by the whole's name without one", () => {
    expect(optionNameOf([], "adapters[1].options")).toBe("adapters[1].options");
    expect(optionNameOf([])).toBe("options");
    expect(optionNameOf([], "", "(root)")).toBe("(root)");
  });
});

describe("configErrorFromIssues", () => {
  it("names the first problem's option and keeps the zod error as the cause", () => {
    const zodError = failedParse({ baseUrl: "not a url" });
    const error = configErrorFromIssues(zodError);
    expect(error).toBeInstanceOf(AdapterConfigError);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.option).toBe("baseUrl");
    expect(error.message).toMatch(/^Invalid configuration at baseUrl: /);
    expect(error.cause).toBe(zodError);
  });

  it("lists the other problems after the first, each with its option", () => {
    const error = configErrorFromIssues(failedParse({ baseUrl: "not a url", jobs: [{ url: 7 }] }), {
      prefix: "adapters[0].options",
    });
    expect(error.option).toBe("adapters[0].options.baseUrl");
    expect(error.message).toContain("; also adapters[0].options.jobs[0].url: ");
  });

  it("names the environment variable an option may come from, after that option's problem", () => {
    const environmentVariables = { baseUrl: "EXAMPLE_BASE_URL", "app.appId": "EXAMPLE_APP_ID" };
    const error = configErrorFromIssues(failedParse({ baseUrl: 1, app: {}, jobs: [{}] }), { environmentVariables });
    expect(error.option).toBe("baseUrl");
    expect(error.message).toMatch(
      /^Invalid configuration at baseUrl: [^;]+ \(it may come from the EXAMPLE_BASE_URL environment variable\); also /,
    );
    expect(error.message).toContain("app.appId: ");
    expect(error.message).toContain("(it may come from the EXAMPLE_APP_ID environment variable)");
    // An option without a variable gets no hint, and the hint names only the variable, never its value.
    expect(error.message).toMatch(/jobs\[0\]\.url: [^(]+$/);
  });

  it("never repeats the value it refused, which may be a credential", () => {
    const error = configErrorFromIssues(failedParse({ baseUrl: "ghp_secretvalue0123456789" }));
    expect(error.message).not.toContain("ghp_secretvalue0123456789");
  });
});

describe("describeConfigIssues", () => {
  it("gives one option: problem line per issue", () => {
    const lines = describeConfigIssues(failedParse({ baseUrl: 1, app: {} }).issues, "adapters[2].options");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^adapters\[2\]\.options\.baseUrl: /);
    expect(lines[1]).toMatch(/^adapters\[2\]\.options\.app\.appId: /);
  });
});
