import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { builtInConfigJsonSchema, configJsonSchemaFile } from "./config-json-schema.js";

const packageDirectory = fileURLToPath(new URL("../", import.meta.url));
const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url));
const committedFile = join(packageDirectory, configJsonSchemaFile);
const committed = JSON.parse(readFileSync(committedFile, "utf8")) as Record<string, unknown>;

/** Every config file under examples/, by path from the repository root. */
function exampleConfigs(): string[] {
  return readdirSync(join(repositoryRoot, "examples"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".config.yaml") && !file.includes("node_modules"))
    .map((file) => join("examples", file));
}

function validator() {
  // Formats (uri) are for editors to check; strict mode would refuse keywords zod writes for editors too.
  return new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile(committed);
}

describe("the config file's JSON Schema", () => {
  it("is up to date with the zod schemas (run pnpm schema after changing them)", async () => {
    expect(committed).toEqual(await builtInConfigJsonSchema());
  });

  it("is referenced on the first line of every example config, by a path that reaches it", () => {
    const configs = exampleConfigs();
    expect(configs).toEqual(
      expect.arrayContaining(["examples/demo/jobtasks.config.yaml", "examples/github-ci/jobtasks.config.yaml"]),
    );
    for (const config of configs) {
      const firstLine = readFileSync(join(repositoryRoot, config), "utf8").split("\n")[0]!;
      const reference = /^# yaml-language-server: \$schema=(\S+)$/.exec(firstLine)?.[1];
      expect(reference, config).toBeDefined();
      expect(relative(repositoryRoot, resolve(dirname(join(repositoryRoot, config)), reference!)), config).toBe(
        relative(repositoryRoot, committedFile),
      );
    }
  });

  it("accepts every example config", () => {
    const validate = validator();
    for (const config of exampleConfigs()) {
      const valid = validate(parseYaml(readFileSync(join(repositoryRoot, config), "utf8")));
      expect(valid ? [] : validate.errors, config).toEqual([]);
    }
  });

  it("refuses what the command refuses: an unknown field, a wrong type, an unknown kind, a bad option of a kind", () => {
    const validate = validator();
    const adapter = { name: "ci", kind: "github-actions", options: { token: "x", repositories: ["o/r"] } };
    expect(validate({ adapters: [adapter] }), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ adapters: [adapter], colour: "blue" })).toBe(false);
    expect(validate({ server: { pollIntervalMs: "fast" }, adapters: [adapter] })).toBe(false);
    expect(validate({ adapters: [{ ...adapter, kind: "nonsense" }] })).toBe(false);
    expect(validate({ adapters: [{ ...adapter, options: { ...adapter.options, repositories: "o/r" } }] })).toBe(false);
    expect(validate({ adapters: [] })).toBe(false);
    // A string read from the environment at start-up is accepted as written; a broken literal is not.
    expect(
      validate({
        adapters: [{ ...adapter, options: { ...adapter.options, repositories: ["${GITHUB_REPOSITORY:-o/r}"] } }],
      }),
    ).toBe(true);
    expect(
      validate({ adapters: [{ ...adapter, options: { ...adapter.options, repositories: ["not a repository"] } }] }),
    ).toBe(false);
  });

  it("describes a kind: rest options block field by field, each optional because a preset may supply it", () => {
    const validate = validator();
    const rest = (options: Record<string, unknown>) => ({ adapters: [{ name: "jobs", kind: "rest", options }] });
    // A preset with the one field it cannot know, and a nested object merged over the preset's, are fine.
    expect(
      validate(rest({ preset: "demo-api", baseUrl: "http://127.0.0.1:4010", status: { path: "$.state" } })),
      JSON.stringify(validate.errors),
    ).toBe(true);
    // Wrong types anywhere in the block are refused, which the preset-merging schema alone could not show.
    expect(validate(rest({ preset: "demo-api", timeoutMs: "fast" }))).toBe(false);
    expect(validate(rest({ preset: "demo-api", tools: "run_job" }))).toBe(false);
    expect(validate(rest({ preset: "demo-api", polling: { multiplier: "x" } }))).toBe(false);
  });
});

describe("a JSON config naming its schema", () => {
  it("is accepted: $schema is the one key that is not a setting", async () => {
    const { loadConfig } = await import("./load-config.js");
    const directory = mkdtempSync(join(tmpdir(), "jobtasks-schema-"));
    try {
      const file = join(directory, "jobtasks.config.json");
      const tinyAdapter = fileURLToPath(new URL("./__fixtures__/tiny-adapter.mjs", import.meta.url));
      writeFileSync(
        file,
        JSON.stringify({
          $schema: "./node_modules/jobtasks/jobtasks.config.schema.json",
          adapters: [{ name: "tiny", module: tinyAdapter, options: { baseUrl: "http://127.0.0.1:9" } }],
        }),
      );
      const config = await loadConfig(file, {});
      expect(config.adapters.map(({ name }) => name)).toEqual(["tiny"]);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
