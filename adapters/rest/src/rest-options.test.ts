import { AdapterConfigError, describeConfigIssues } from "@jobtasks/core";
import { describe, expect, it } from "vitest";
import { adapterDefinition } from "./adapter-definition.js";
import { restAdapter } from "./rest-adapter.js";
import { restOptionsSchema } from "./rest-options.js";
import { renderFarmConfig } from "./test-support/render-farm-config.js";

function problems(options: unknown): string[] {
  const parsed = restOptionsSchema.safeParse(options);
  if (parsed.success) return [];
  return describeConfigIssues(parsed.error.issues);
}

describe("rest options", () => {
  it("is the definition's options schema, for kind rest", () => {
    expect(adapterDefinition.kind).toBe("rest");
    expect(adapterDefinition.optionsSchema).toBe(restOptionsSchema);
  });

  it("lets a preset fill everything but baseUrl and tools", () => {
    const parsed = restOptionsSchema.parse({
      preset: "azure-lro",
      baseUrl: "https://x.example.test",
      tools: [{ name: "t", description: "d", submit: { url: "/jobs" } }],
      polling: { maxIntervalMs: 60_000 },
    });
    expect(parsed.reference.header).toEqual(["Operation-Location", "Azure-AsyncOperation", "Location"]);
    expect(parsed.status.completed).toEqual(["Succeeded"]);
    // Objects merge key by key: the preset's initial interval stays, the user's maximum wins.
    expect(parsed.polling).toEqual({ initialIntervalMs: 2_000, multiplier: 1.5, maxIntervalMs: 60_000 });
  });

  it("names the missing field when a preset cannot know it", () => {
    expect(problems({ preset: "google-operation" })).toEqual(
      expect.arrayContaining([expect.stringMatching(/^baseUrl: /), expect.stringMatching(/^tools: /)]),
    );
    expect(problems({ preset: "demo-api" })).toEqual([expect.stringMatching(/^baseUrl: /)]);
  });

  it("refuses an unknown preset, naming it", () => {
    expect(problems({ preset: "aws-step-functions", baseUrl: "https://x.example.test" })[0]).toMatch(/^preset: /);
  });

  it("names nested fields with their full path", () => {
    const config = renderFarmConfig();
    const found = problems({
      ...config,
      baseUrl: "ftp://files.example.test",
      tools: [{ ...config.tools![0]!, name: "has space", submit: { url: "https://evil.example.test/x" } }],
      status: { ...config.status!, field: [] },
      auth: { type: "bearer", tokenEnv: "not a name" },
    });
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^baseUrl: /),
        expect.stringMatching(/^tools\[0\]\.name: /),
        expect.stringMatching(/^tools\[0\]\.submit\.url: expected a path relative to baseUrl/),
        expect.stringMatching(/^status\.field: /),
        expect.stringMatching(/^auth\.tokenEnv: expected an environment variable name/),
      ]),
    );
  });

  it("checks rules that span fields", () => {
    const config = renderFarmConfig();
    const { url: _url, ...statusWithoutUrl } = config.status!;
    expect(problems({ ...config, status: statusWithoutUrl })).toEqual([
      expect.stringMatching(/^status\.url: required when the reference is a job id/),
    ]);
    expect(problems({ ...config, status: { ...config.status!, cancelled: ["Done"] } })).toEqual([
      expect.stringMatching(/^status\.cancelled: "done" is already listed in status\.completed/),
    ]);
    expect(problems({ ...config, status: { ...config.status!, errorValues: ["queued"] } })).toEqual([
      expect.stringMatching(/^status\.errorValues: /),
    ]);
    expect(problems({ ...config, tools: [config.tools![0]!, config.tools![0]!] })).toEqual([
      expect.stringMatching(/^tools\[1\]\.name: duplicate tool name/),
    ]);
    const { inputRequired: _input, ...withoutInput } = config;
    expect(problems(withoutInput)).toEqual([
      expect.stringMatching(/^inputRequired: required when status\.inputRequired lists values/),
    ]);
    expect(problems({ ...config, tools: [{ ...config.tools![0]!, inputSchema: { type: "object" } }] })).toEqual([
      expect.stringMatching(/^tools\[0\]\.input: give either/),
    ]);
    expect(
      problems({
        ...config,
        submit: undefined,
        query: "{{x}}",
        tools: [{ ...config.tools![0]!, submit: { url: "/x?y=1" } }],
      }),
    ).toEqual([expect.stringMatching(/^tools\[0\]\.submit\.url: put query parameters under `query`/)]);
  });

  it("accepts a tool input schema written as JSON Schema", () => {
    const config = renderFarmConfig();
    const tool = {
      ...config.tools![0]!,
      input: undefined,
      inputSchema: {
        type: "object",
        properties: { scene: { type: "string", enum: ["a", "b"] }, tags: { type: "array", items: { type: "string" } } },
        required: ["scene"],
      },
    };
    const schema = restAdapter({ ...config, tools: [tool] }, { environment: { RENDER_TOKEN: "x" } }).tools[0]!
      .inputSchema;
    expect(schema.parse({ scene: "a", tags: ["x"] })).toEqual({ scene: "a", tags: ["x"] });
    expect(schema.safeParse({ scene: "c" }).success).toBe(false);
  });

  it("understands the compact typed form", () => {
    const config = renderFarmConfig();
    const tool = {
      ...config.tools![0]!,
      input: {
        scene: "string",
        count: "integer?",
        tags: "string[]?",
        urgent: { type: "boolean" as const, default: false },
      },
    };
    const schema = restAdapter({ ...config, tools: [tool] }, { environment: { RENDER_TOKEN: "x" } }).tools[0]!
      .inputSchema;
    expect(schema.parse({ scene: "a" })).toEqual({ scene: "a", urgent: false });
    expect(schema.safeParse({ scene: "a", count: "3" }).success).toBe(false);
    expect(schema.safeParse({ count: 3 }).success).toBe(false);
  });

  it("stops at build time when a secret's environment variable is missing, naming option and variable", () => {
    expect(() => restAdapter(renderFarmConfig(), { environment: {} })).toThrow(AdapterConfigError);
    expect(() => restAdapter(renderFarmConfig(), { environment: {} })).toThrow(
      "Invalid configuration at auth.tokenEnv: environment variable RENDER_TOKEN is not set",
    );
    expect(() => restAdapter({ ...renderFarmConfig(), auth: { type: "bearer" } }, { environment: {} })).toThrow(
      /auth\.token: give auth\.token or auth\.tokenEnv/,
    );
  });

  it("reports invalid options passed straight to restAdapter as AdapterConfigError naming the first field", () => {
    const failure = (() => {
      try {
        restAdapter({ ...renderFarmConfig(), timeoutMs: -1 });
      } catch (error) {
        return error;
      }
    })();
    expect(failure).toBeInstanceOf(AdapterConfigError);
    expect((failure as AdapterConfigError).option).toBe("timeoutMs");
  });

  it("builds through adapterDefinition.create with the environment it is given", () => {
    const options = restOptionsSchema.parse(renderFarmConfig());
    const adapter = adapterDefinition.create(options, { RENDER_TOKEN: "from-environment-123" });
    expect(adapter.kind).toBe("rest");
    expect(adapter.tools.map((tool) => tool.name)).toEqual(["render_scene"]);
  });
});
