import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigFileError, loadConfig } from "./load-config.js";
import { nodeRequirementProblem } from "./adapter-registry.js";
import { exampleConfigEnvironment, examplesNeedingNewerNode } from "./test-support/example-config-environment.js";

const fixtures = fileURLToPath(new URL("./__fixtures__/", import.meta.url));
const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url));

// Every config file of this test file lives under one temporary folder, removed when the file is done.
let temporaryRoot: string;
beforeAll(async () => {
  temporaryRoot = await mkdtemp(join(tmpdir(), "jobtasks-config-"));
});
afterAll(async () => {
  if (temporaryRoot) await rm(temporaryRoot, { recursive: true, force: true });
});

async function writeConfig(text: string): Promise<string> {
  const directory = await mkdtemp(join(temporaryRoot, "case-"));
  const file = join(directory, "jobtasks.config.yaml");
  await writeFile(file, text.replaceAll("FIXTURES", fixtures));
  return file;
}

async function problemsOf(text: string, environment: Record<string, string> = {}): Promise<string[]> {
  const file = await writeConfig(text);
  const error = await loadConfig(file, environment).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConfigFileError);
  return (error as ConfigFileError).problems;
}

describe("loadConfig", () => {
  it("refuses a server.allowedOrigins entry that is not an origin, naming the entry", async () => {
    const adapters = `
adapters:
  - name: tiny
    module: FIXTURES/tiny-adapter.mjs
    options: { baseUrl: "http://127.0.0.1:9" }
`;
    expect(
      await problemsOf(
        `server:\n  allowedOrigins: ["https://app.example.com", "https://app.example.com/console"]\n${adapters}`,
      ),
    ).toEqual([expect.stringMatching(/^server\.allowedOrigins\[1\]: .*origin/)]);
    const file = await writeConfig(`server:\n  allowedOrigins: ["https://app.example.com:8443"]\n${adapters}`);
    expect((await loadConfig(file, {})).server.allowedOrigins).toEqual(["https://app.example.com:8443"]);
  });

  it("builds the adapters a valid file describes, with server defaults", async () => {
    const file = await writeConfig(`
adapters:
  - name: tiny
    module: FIXTURES/tiny-adapter.mjs
    options:
      baseUrl: \${TINY_URL:-http://127.0.0.1:9}
`);
    const config = await loadConfig(file, {});
    expect(config.server).toMatchObject({
      name: "jobtasks",
      pollIntervalMs: 2000,
      upstreamRetryBudgetMs: 600_000,
      formsFromTaskStatus: false,
    });
    // No level unless one is written: the transport picks the default (see readServerSettings).
    expect(config.server.logLevel).toBeUndefined();
    expect(config.adapters.map((entry) => [entry.name, entry.adapter.tools[0]!.name])).toEqual([["tiny", "tiny_job"]]);
  });

  it("reads JSON too, and takes values from the environment", async () => {
    const file = await writeConfig(
      JSON.stringify({
        server: { name: "ci" },
        adapters: [
          {
            name: "a",
            module: "FIXTURES/tiny-adapter.mjs",
            options: { baseUrl: "${TINY_URL}", toolName: "job_$${literal}" },
          },
        ],
      }),
    );
    const config = await loadConfig(file, { TINY_URL: "http://127.0.0.1:8080" });
    expect(config.server.name).toBe("ci");
    expect(config.adapters[0]!.adapter.tools[0]!.name).toBe("job_${literal}");
  });

  it("names every field at fault, with what was expected", async () => {
    const problems = await problemsOf(`
server:
  pollIntervalMs: fast
  colour: blue
adapters:
  - name: tiny
    module: FIXTURES/tiny-adapter.mjs
`);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^server\.pollIntervalMs: .*expected number/),
        expect.stringMatching(/^\(root\)|^server: .*colour/),
      ]),
    );
  });

  it("names the adapter option at fault, prefixed with where the adapter sits", async () => {
    const problems = await problemsOf(`
adapters:
  - name: ok
    module: FIXTURES/tiny-adapter.mjs
    options: { baseUrl: "http://127.0.0.1:1" }
  - name: broken
    module: FIXTURES/tiny-adapter.mjs
    options: { baseUrl: "not a url", extra: 1 }
`);
    expect(problems).toEqual([
      expect.stringMatching(/^adapters\[1\]\.options\.baseUrl: /),
      expect.stringMatching(/^adapters\[1\]\.options: .*extra/),
    ]);
  });

  it("reports an adapter's own start-up refusal under its options", async () => {
    const problems = await problemsOf(`
adapters:
  - name: tiny
    module: FIXTURES/tiny-adapter.mjs
    options: { baseUrl: "http://127.0.0.1:1", tokenVariable: TINY_TOKEN }
`);
    expect(problems).toEqual(["adapters[0].options.tokenVariable: environment variable TINY_TOKEN is not set"]);
  });

  it("refuses a missing environment variable, naming the field and the variable", async () => {
    const problems = await problemsOf(`
adapters:
  - name: tiny
    module: FIXTURES/tiny-adapter.mjs
    options: { baseUrl: "\${TINY_URL}" }
`);
    expect(problems).toEqual([
      expect.stringMatching(/^adapters\[0\]\.options\.baseUrl: environment variable TINY_URL is not set/),
    ]);
  });

  it.each([
    ["adapters: []", /adapters: .*at least one adapter/],
    [
      "adapters:\n  - name: x\n    kind: nonsense",
      /adapters\[0\]\.kind: unknown adapter kind "nonsense"; expected one of demo, github-actions, aws-batch, rest/,
    ],
    ["adapters:\n  - name: x", /adapters\[0\]: give exactly one of kind or module/],
    ["adapters:\n  - name: bad name!\n    kind: demo", /adapters\[0\]\.name: /],
    ["adapters:\n  - name: x\n    module: ./does-not-exist.mjs", /adapters\[0\]: cannot load adapter module/],
    ["adapters: [unclosed", /not valid YAML or JSON/],
    [
      "adapters:\n  - {name: a, module: FIXTURES/tiny-adapter.mjs, options: {baseUrl: 'http://127.0.0.1:1'}}\n  - {name: a, module: FIXTURES/tiny-adapter.mjs, options: {baseUrl: 'http://127.0.0.1:1'}}",
      /adapters\[1\]\.name: "a" is already used/,
    ],
  ])("refuses %j", async (text, expected) => {
    const problems = await problemsOf(text);
    expect(problems.join("\n")).toMatch(expected);
  });

  it("says when the file cannot be read, with its absolute path", async () => {
    const error = await loadConfig("no-such-folder/jobtasks.yaml", {}).catch((caught: unknown) => caught);
    expect((error as ConfigFileError).problems).toEqual([
      `cannot read ${resolve("no-such-folder/jobtasks.yaml")}: no such file (ENOENT)`,
    ]);
  });

  it("shows a YAML syntax error with its line, column and the offending line", async () => {
    const problems = await problemsOf("server:\n  name: ci\nadapters:\n  - name: a: b\n    kind: demo\n");
    expect(problems[0]).toBe(
      [
        "not valid YAML or JSON at line 4, column 11: Nested mappings are not allowed in compact mappings",
        "      4 |   - name: a: b",
        "        |           ^",
      ].join("\n"),
    );
  });

  it("shows a JSON syntax error the same way", async () => {
    const problems = await problemsOf('{\n  "adapters": [\n    {"name": "a",, "kind": "demo"}\n  ]\n}\n');
    expect(problems[0]).toMatch(
      /^not valid YAML or JSON at line 3, column 18: .*\n      3 \|     \{"name": "a",, "kind": "demo"\}\n        \| {18}\^$/,
    );
  });

  it("accepts every config shipped in examples/", async () => {
    const candidates: string[] = [];
    for (const example of await readdir(join(repositoryRoot, "examples"))) {
      const directory = join(repositoryRoot, "examples", example);
      if (!existsSync(directory) || example.includes(".")) continue;
      for (const file of await readdir(directory))
        if (file.endsWith(".config.yaml")) candidates.push(join(directory, file));
    }
    expect(candidates.map((file) => file.slice(repositoryRoot.length))).toEqual(
      expect.arrayContaining(["examples/demo/jobtasks.config.yaml", "examples/demo/jobtasks.demo-adapter.config.yaml"]),
    );
    const environment = exampleConfigEnvironment;
    for (const file of candidates) {
      const kind = examplesNeedingNewerNode[file.slice(repositoryRoot.length)];
      const tooOld = kind === undefined ? undefined : nodeRequirementProblem(kind);
      if (tooOld !== undefined) {
        await expect(loadConfig(file, environment)).rejects.toThrow(tooOld);
        continue;
      }
      const config = await loadConfig(file, environment).catch((error: unknown) => {
        throw new Error(`${file}: ${(error as Error).message}`);
      });
      expect(config.adapters.length, file).toBeGreaterThan(0);
      await Promise.allSettled(config.adapters.map(({ adapter }) => adapter.close?.()));
    }
  });
});
