import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Conventions every package under adapters/ keeps (docs/writing-an-adapter.md): a README, and a test file
 * that runs the testkit's conformance suite. Adapters listed in `followTheAnatomy` also keep the file
 * names of the guide's anatomy, speak to their upstream only from `<kind>-api.ts` and its transport, and
 * use only the public kit. So does the demo adapter, the first one a new user runs, although it is no
 * package of adapters/: its package also holds the demo job API (src/demo-api/), so the adapter's files sit
 * in src/demo-adapter/ beside it, and the package's src/index.ts exports both.
 */

const adaptersDirectory = fileURLToPath(new URL("../adapters/", import.meta.url));
const followTheAnatomy = ["gitlab-ci", "aws-batch", "github-actions", "rest", "demo"];
/** Anatomy adapters outside adapters/<kind>/: their package, and the folder in it with the adapter's files. */
const placedElsewhere: Record<string, { root: string; source: string }> = {
  demo: { root: fileURLToPath(new URL("../examples/demo/", import.meta.url)), source: "src/demo-adapter" },
};

/**
 * The files beside `<kind>-api.ts` that may speak to the upstream: the transport it is built on (an HTTP
 * client, an SDK client's set-up, a conditional-GET cache; docs/writing-an-adapter.md, section 4).
 */
const transportFiles: Record<string, readonly string[]> = {
  "aws-batch": ["create-aws-clients.ts"],
  "github-actions": ["create-github-client.ts", "conditional-fetch.ts"],
  "gitlab-ci": ["gitlab-http-client.ts"],
  rest: ["http-client.ts"],
};

/** HTTP and SDK client modules: only an adapter's api and transport files use them for more than types. */
const clientModule = /^(undici|@aws-sdk\/.+|@octokit\/.+)$/;

/** A clause of an import or export that brings in types only: `type { A }`, `{ type A, type B }`. */
function typesOnly(clause: string): boolean {
  if (/^type\s/.test(clause)) return true;
  const names = /^\{([\s\S]*)\}$/.exec(clause)?.[1];
  if (names === undefined) return false;
  const specifiers = names
    .split(",")
    .map((specifier) => specifier.trim())
    .filter((specifier) => specifier !== "");
  return specifiers.length > 0 && specifiers.every((specifier) => /^type\s/.test(specifier));
}

/** The modules a source file imports, re-exports or loads for more than their types. */
function valueImports(text: string): string[] {
  const modules: string[] = [];
  for (const match of text.matchAll(/^[ \t]*(?:import|export)\s+([^;]*?)\s*from\s*["']([^"']+)["']/gm)) {
    if (!typesOnly((match[1] ?? "").trim())) modules.push(match[2] ?? "");
  }
  for (const match of text.matchAll(/^[ \t]*import\s*["']([^"']+)["']/gm)) modules.push(match[1] ?? "");
  for (const match of text.matchAll(/(?<!typeof\s*)\bimport\(\s*["']([^"']+)["']\s*\)/g)) modules.push(match[1] ?? "");
  return modules;
}

const adapterNames = (await readdir(adaptersDirectory, { withFileTypes: true }))
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

async function sourceFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe("valueImports", () => {
  it("tells imports for values from imports of types, and finds re-exports and dynamic imports", () => {
    const text = [
      'import type { Dispatcher } from "undici";',
      'import { type BatchClient, type JobDetail } from "@aws-sdk/client-batch";',
      "import {",
      "  type CloudWatchLogsClient,",
      "  GetLogEventsCommand,",
      '} from "@aws-sdk/client-cloudwatch-logs";',
      'export { request } from "undici";',
      'export type { Octokit } from "@octokit/rest";',
      'import "./side-effect.js";',
      'let undici: Promise<typeof import("undici")> | undefined;',
      'const loaded = import("@octokit/plugin-retry");',
    ].join("\n");
    expect(valueImports(text)).toEqual([
      "@aws-sdk/client-cloudwatch-logs",
      "undici",
      "./side-effect.js",
      "@octokit/plugin-retry",
    ]);
  });
});

describe("adapters/*", () => {
  it("finds the adapters, and every anatomy adapter among them", () => {
    expect(adapterNames.length).toBeGreaterThanOrEqual(4);
    expect(adapterNames).toEqual(expect.arrayContaining(followTheAnatomy.filter((kind) => !placedElsewhere[kind])));
  });

  describe.each(adapterNames)("%s", (name) => {
    const root = join(adaptersDirectory, name);

    it("has a README", () => {
      expect(existsSync(join(root, "README.md")), `adapters/${name}/README.md`).toBe(true);
    });

    it("runs the conformance suite from @jobtasks/testkit in a test file", async () => {
      const tests = (await sourceFiles(join(root, "src"))).filter((file) => file.endsWith(".test.ts"));
      const runners = [];
      for (const file of tests) {
        const text = await readFile(file, "utf8");
        if (
          /import\s*\{[^}]*\brunAdapterConformance\b[^}]*\}\s*from\s*"@jobtasks\/testkit"/.test(text) &&
          /\brunAdapterConformance\s*(<[^>]*>)?\(/.test(text)
        )
          runners.push(file);
      }
      expect(runners, `a test file under adapters/${name}/src that calls runAdapterConformance`).not.toEqual([]);
    });
  });

  describe.each(followTheAnatomy)("%s follows the anatomy", (kind) => {
    const { root, source } = placedElsewhere[kind] ?? { root: join(adaptersDirectory, kind), source: "src" };

    it("has the anatomy's files", async () => {
      const expected = [
        "README.md",
        "src/index.ts",
        `${source}/adapter-definition.ts`,
        `${source}/${kind}-adapter.ts`,
        `${source}/${kind}-options.ts`,
        `${source}/${kind}-api.ts`,
        `${source}/map-${kind}-status.ts`,
        `${source}/map-${kind}-status.test.ts`,
        `${source}/conformance.test.ts`,
        `${source}/__fixtures__`,
      ];
      const missing = expected.filter((file) => !existsSync(join(root, file)));
      expect(missing, `missing in ${root}`).toEqual([]);
      const tools = (await readdir(join(root, source))).filter((file) => file.endsWith("-tool.ts"));
      expect(tools, "one <name>-tool.ts file per tool").not.toEqual([]);
    });

    it("declares its kind in adapter-definition.ts and its public options type as the schema's z.input", async () => {
      expect(await readFile(join(root, `${source}/adapter-definition.ts`), "utf8")).toContain(`kind: "${kind}"`);
      expect(await readFile(join(root, `${source}/${kind}-options.ts`), "utf8")).toMatch(
        /export type \w+ = z\.input<typeof \w+>/,
      );
    });

    it("speaks to its upstream only from <kind>-api.ts and the transport under it", async () => {
      const transports = transportFiles[kind] ?? [];
      const missing = transports.filter((file) => !existsSync(join(root, "src", file)));
      expect(missing, `transport files listed for adapters/${kind} that do not exist`).toEqual([]);
      const api = `${kind}-api.ts`;
      // The factory builds the transport and hands it to the api; nothing else calls it.
      const transportUsers = new Set([api, `${kind}-adapter.ts`, ...transports]);
      const offenders: string[] = [];
      const shipped = (await sourceFiles(join(root, source))).filter(
        (file) => !file.endsWith(".test.ts") && !relative(join(root, source), file).startsWith("test-support"),
      );
      for (const file of shipped) {
        const name = relative(join(root, source), file);
        const modules = valueImports(await readFile(file, "utf8"));
        if (name !== api && !transports.includes(name)) {
          for (const module of modules.filter((module) => clientModule.test(module)))
            offenders.push(`${name} imports ${module}`);
        }
        if (!transportUsers.has(name)) {
          for (const module of modules.filter((module) =>
            transports.some((transport) => module === `./${transport.replace(/\.ts$/, ".js")}`),
          ))
            offenders.push(`${name} calls the transport ${module}`);
        }
      }
      expect(
        offenders,
        `adapters/${kind}: only ${api} and its transport (${transports.join(", ") || "none"}) speak to the upstream`,
      ).toEqual([]);
    });

    it("uses only the public kit: nothing from @jobtasks/server", async () => {
      const manifest = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as Record<
        string,
        Record<string, string> | undefined
      >;
      const dependencies = {
        ...manifest["dependencies"],
        ...manifest["devDependencies"],
        ...manifest["peerDependencies"],
      };
      // The demo job API may be a devDependency: a fake upstream that a preset describing it (rest's demo-api)
      // is tested against in-process, used by tests only and no part of the kit the adapter is built on.
      const shipped = { ...manifest["dependencies"], ...manifest["peerDependencies"] };
      const testUpstream = (name: string) => name === "@jobtasks/demo" && !(name in shipped);
      expect(
        Object.keys(dependencies)
          .filter((name) => name.startsWith("@jobtasks/") && !testUpstream(name))
          .sort(),
      ).toEqual(["@jobtasks/core", "@jobtasks/testkit"]);
      for (const file of await sourceFiles(join(root, "src"))) {
        const text = await readFile(file, "utf8");
        expect(text, file).not.toMatch(/from\s*"(@jobtasks\/server|\.\.\/\.\.\/\.\.\/packages)/);
        if (!file.endsWith(".test.ts")) expect(text, file).not.toMatch(/from\s*"@jobtasks\/demo"/);
      }
    });
  });
});
