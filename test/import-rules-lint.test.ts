import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The import rules of .oxlintrc.json (`no-restricted-imports`, per folder), run on fixture files: each
 * fixture imports what its folder may not, and what it may, and the test expects oxlint to refuse exactly
 * the first. Without it, a glob that stopped matching (a renamed folder, a reordered override: the last
 * matching one wins) would let every violation through with `pnpm lint` still green.
 */

const root = fileURLToPath(new URL("../", import.meta.url));
const run = promisify(execFile);

/** Per fixture file: the specifiers it imports for their values, those it imports for types only, and which oxlint must refuse. */
const fixtures: { file: string; values: string[]; types?: string[]; refused: string[] }[] = [
  {
    file: "adapters/rest/src/some-tool.ts",
    values: [
      "@jobtasks/core",
      "@jobtasks/core/adapter-utils",
      "./rest-api.js",
      "@jobtasks/server",
      "@jobtasks/testkit",
      "@jobtasks/demo",
      "zod",
    ],
    types: ["undici", "./http-client.js"],
    refused: ["@jobtasks/server", "@jobtasks/testkit", "@jobtasks/demo", "zod"],
  },
  {
    file: "adapters/rest/src/uses-clients.ts",
    values: ["undici", "./http-client.js"],
    refused: ["undici", "./http-client.js"],
  },
  { file: "adapters/rest/src/rest-adapter.ts", values: ["./http-client.js", "undici"], refused: ["undici"] },
  { file: "adapters/rest/src/rest-api.ts", values: ["undici", "./http-client.js", "zod/mini"], refused: ["zod/mini"] },
  {
    file: "adapters/github-actions/src/describe-run.ts",
    values: ["@octokit/rest", "./conditional-fetch.js", "@jobtasks/server/internal"],
    refused: ["@octokit/rest", "./conditional-fetch.js", "@jobtasks/server/internal"],
  },
  { file: "adapters/aws-batch/src/read-it.ts", values: ["@aws-sdk/client-batch"], refused: ["@aws-sdk/client-batch"] },
  {
    file: "adapters/rest/src/some-tool.test.ts",
    values: ["@jobtasks/testkit", "undici", "@jobtasks/server", "zod"],
    refused: ["@jobtasks/server", "zod"],
  },
  { file: "adapters/rest/src/test-support/fake.ts", values: ["@jobtasks/testkit", "undici"], refused: [] },
  // A new adapter is under the rules before anyone lists it.
  {
    file: "adapters/new-kind/src/new-kind-api.ts",
    values: ["@jobtasks/server", "undici"],
    refused: ["@jobtasks/server", "undici"],
  },
  {
    file: "examples/demo/src/demo-adapter/demo-pipeline-tool.ts",
    values: ["undici", "@jobtasks/demo"],
    refused: ["undici", "@jobtasks/demo"],
  },
  {
    file: "examples/minimal-adapter/src/thing.ts",
    values: ["@jobtasks/server", "@jobtasks/core"],
    refused: ["@jobtasks/server"],
  },
  {
    file: "packages/server/src/some-module.ts",
    values: ["@jobtasks/core", "@modelcontextprotocol/server", "@jobtasks/rest", "@jobtasks/gitlab-ci/sub", "zod"],
    refused: ["@jobtasks/rest", "@jobtasks/gitlab-ci/sub", "zod"],
  },
  {
    file: "packages/core/src/some-module.ts",
    values: ["@jobtasks/core/zod", "@jobtasks/server", "@modelcontextprotocol/server", "zod"],
    refused: ["@jobtasks/server", "@modelcontextprotocol/server", "zod"],
  },
  { file: "packages/core/src/zod.ts", values: ["zod"], refused: [] },
  { file: "bench/some-bench.ts", values: ["zod", "@jobtasks/server"], refused: ["zod"] },
  { file: "test/some.test.ts", values: ["zod/v4"], refused: ["zod/v4"] },
];

function fixtureText(fixture: (typeof fixtures)[number]): string {
  const values = fixture.values.map((specifier, index) => `export * as value${index} from "${specifier}";`);
  const types = (fixture.types ?? []).map((specifier, index) => `export type { Type${index} } from "${specifier}";`);
  return [...values, ...types, ""].join("\n");
}

let scratch: string;
/** Per fixture file, the specifiers oxlint's no-restricted-imports refused in it. */
let refusedByLint: Map<string, string[]>;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "jobtasks-import-rules-"));
  await copyFile(join(root, ".oxlintrc.json"), join(scratch, ".oxlintrc.json"));
  for (const fixture of fixtures) {
    await mkdir(dirname(join(scratch, fixture.file)), { recursive: true });
    await writeFile(join(scratch, fixture.file), fixtureText(fixture));
  }
  // oxlint exits 1 when it finds errors, which is what this test wants to see.
  const output = await run(join(root, "node_modules/.bin/oxlint"), ["-c", ".oxlintrc.json", "-f", "json", "."], {
    cwd: scratch,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
  const report = JSON.parse(output.stdout) as { diagnostics: { code: string; message: string; filename: string }[] };
  refusedByLint = new Map();
  for (const diagnostic of report.diagnostics) {
    if (diagnostic.code !== "eslint(no-restricted-imports)") continue;
    const specifier = /^'([^']+)' import is restricted/.exec(diagnostic.message)?.[1] ?? diagnostic.message;
    const file = diagnostic.filename.replace(/\\/g, "/").replace(/^\.\//, "");
    refusedByLint.set(file, [...(refusedByLint.get(file) ?? []), specifier]);
  }
}, 60_000);

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("the import rules in .oxlintrc.json", () => {
  it.each(fixtures)("$file: oxlint refuses exactly $refused", ({ file, refused }) => {
    expect((refusedByLint.get(file) ?? []).sort()).toEqual([...refused].sort());
  });

  it("names only files that exist: a renamed api or transport file must be renamed in the rules too", async () => {
    const config = JSON.parse(await readFile(join(root, ".oxlintrc.json"), "utf8")) as {
      overrides: { files: string[]; rules: Record<string, unknown> }[];
    };
    const named = config.overrides
      .filter((override) => "no-restricted-imports" in override.rules)
      .flatMap((override) => override.files)
      .filter((file) => !file.includes("*"));
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((file) => !existsSync(join(root, file)))).toEqual([]);
    const transports = config.overrides
      .flatMap((override) => {
        const rule = override.rules["no-restricted-imports"];
        const options = Array.isArray(rule) ? (rule[1] as { paths?: { name: string }[] }) : undefined;
        return (options?.paths ?? []).map((path) =>
          join(dirname(override.files[0]!), path.name.replace(/\.js$/, ".ts")),
        );
      })
      .filter((file) => !existsSync(join(root, file)));
    expect(transports).toEqual([]);
  });
});
