import { readFileSync, readdirSync } from "node:fs";
import { describeConfigIssues } from "@jobtasks/core";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { adapterDefinition } from "./adapter-definition.js";

// Every config we show people must load: the README's YAML blocks, examples/rest-jobs/*.yaml and the
// demo preset's config. They are read the way the jobtasks CLI reads them: YAML parsed, `${VAR}` and
// `${VAR:-default}` replaced in string values, `options` validated by optionsSchema, then create().
const packageDirectory = new URL("../", import.meta.url);
const examplesDirectory = new URL("../../../examples/rest-jobs/", import.meta.url);

const environment: Record<string, string> = {
  AZURE_DOCUMENT_ENDPOINT: "https://docs.example.test",
  AZURE_DOCUMENT_KEY: "azure-key-for-tests",
  AZURE_KEY: "azure-key-for-tests",
  GOOGLE_ACCESS_TOKEN: "google-token-for-tests",
  GOOGLE_PROJECT: "demo-project",
  GOOGLE_REGION: "us-central1",
  RENDER_FARM_TOKEN: "render-token-for-tests",
  RENDER_FARM_CALLBACK_SECRET: "render-callback-secret-for-tests",
};

function interpolate(value: unknown): unknown {
  if (typeof value === "string") {
    return value.replace(
      /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
      (_match, name: string, fallback: string | undefined) => {
        const found = environment[name] ?? fallback;
        if (found === undefined) throw new Error(`the example needs ${name}; add it to this test's environment`);
        return found;
      },
    );
  }
  if (Array.isArray(value)) return value.map(interpolate);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item)]));
  return value;
}

function restEntries(document: unknown): Array<{ name: string; options: unknown }> {
  const adapters =
    (document as { adapters?: Array<{ name: string; kind?: string; options?: unknown }> }).adapters ?? [];
  return adapters
    .filter((entry) => entry.kind === "rest")
    .map((entry) => ({ name: entry.name, options: entry.options }));
}

function buildAll(source: string): string[] {
  const entries = restEntries(interpolate(parse(source)));
  expect(entries.length).toBeGreaterThan(0);
  return entries.flatMap((entry) => {
    const parsed = adapterDefinition.optionsSchema.safeParse(entry.options);
    if (!parsed.success) throw new Error(`${entry.name}: ${describeConfigIssues(parsed.error.issues).join("; ")}`);
    return adapterDefinition.create(parsed.data, environment).tools.map((tool) => tool.name);
  });
}

const readmeBlocks = [
  ...readFileSync(new URL("README.md", packageDirectory), "utf8").matchAll(/```yaml\n([\s\S]*?)```/g),
].map((match) => match[1] ?? "");
const exampleFiles = readdirSync(examplesDirectory).filter((file) => file.endsWith(".yaml"));

describe("example configs", () => {
  it("the README has the opening example, the callbacks example and three complete configs", () => {
    expect(readmeBlocks).toHaveLength(5);
    expect(exampleFiles.length).toBeGreaterThanOrEqual(3);
  });

  it.each(readmeBlocks.map((block, index) => [index, block] as const))(
    "README YAML block %i loads and builds",
    (_index, block) => {
      expect(buildAll(block).length).toBeGreaterThan(0);
    },
  );

  it.each(exampleFiles)("examples/rest-jobs/%s loads and builds", (file) => {
    expect(buildAll(readFileSync(new URL(file, examplesDirectory), "utf8")).length).toBeGreaterThan(0);
  });

  it("the demo's config (examples/demo/jobtasks.config.yaml) serves demo_pipeline through the demo-api preset", () => {
    const source = readFileSync(new URL("../../examples/demo/jobtasks.config.yaml", packageDirectory), "utf8");
    expect(buildAll(source)).toEqual(["demo_pipeline"]);
    const [entry] = restEntries(interpolate(parse(source)));
    expect(adapterDefinition.optionsSchema.parse(entry?.options).baseUrl).toBe("http://127.0.0.1:4010");
  });
});
