import { readdir, readFile } from "node:fs/promises";
import { join, posix, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The layering the architecture promises (docs/architecture.md, docs/writing-an-adapter.md), read from
 * the import specifiers of every source file: an adapter builds on the public kit alone, the server
 * knows no adapter, and the core stands on its own. A regex over `from "..."` and `import("...")` is
 * enough because the tree is TypeScript modules only; no require() hides an import.
 */

const root = fileURLToPath(new URL("../", import.meta.url));

/** Imports the rules below would refuse, allowed by name with the reason; each must still be in use. */
const knownExceptions: { file: string; specifier: string; why: string }[] = [];

/**
 * The adapters the examples hold, under the same rules as adapters/*: the one a guide tells you to copy,
 * the conformance fixtures and the demo's. `source` is the adapter's own folder; `package` is where its
 * tests may reach (the demo's start the demo API beside it).
 */
const exampleAdapters = [
  { source: "examples/minimal-adapter/src", package: "examples/minimal-adapter/" },
  { source: "examples/conformance/src", package: "examples/conformance/" },
  { source: "examples/demo/src/demo-adapter", package: "examples/demo/" },
];

type SourceFile = { path: string; imports: string[] };

/** The one module that imports zod, and re-exports it whole. */
const coreZodModule = "packages/core/src/zod.ts";
/** This file, whose sample text imports zod. */
const thisFile = "test/import-boundaries.test.ts";

const specifierPattern = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;

const exportStarPattern = /^\s*export\s+(?:type\s+)?\*/m;

function importsOf(text: string): string[] {
  return [...text.matchAll(specifierPattern)].map((match) => match[1]!);
}

async function sourceFilesUnder(directory: string): Promise<SourceFile[]> {
  const entries = await readdir(join(root, directory), { withFileTypes: true, recursive: true });
  const files = entries.filter(
    (entry) => entry.isFile() && /\.(?:ts|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts"),
  );
  return Promise.all(
    files.map(async (entry) => {
      const path = join(entry.parentPath, entry.name);
      return { path: relative(root, path).split(sep).join("/"), imports: importsOf(await readFile(path, "utf8")) };
    }),
  );
}

async function workspaceFolders(parent: string): Promise<string[]> {
  const entries = await readdir(join(root, parent), { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

function isTestCode(path: string): boolean {
  return path.endsWith(".test.ts") || path.includes("/test-support/");
}

const packageName = (specifier: string) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

/** Adapter package names, read from their package.json, so a renamed adapter stays covered. */
async function adapterPackageNames(): Promise<string[]> {
  const names = await workspaceFolders("adapters");
  return Promise.all(
    names.map(
      async (name) =>
        (JSON.parse(await readFile(join(root, "adapters", name, "package.json"), "utf8")) as { name: string }).name,
    ),
  );
}

/** The violations of the rules in one list of "file → specifier (why)" lines, empty when the tree keeps them. */
async function boundaryViolations(): Promise<string[]> {
  const adapters = await adapterPackageNames();
  const violations: string[] = [];
  const refuse = (file: SourceFile, specifier: string, rule: string) => {
    if (knownExceptions.some((exception) => exception.file === file.path && exception.specifier === specifier)) return;
    violations.push(`${file.path} → ${specifier} (${rule})`);
  };

  const adapterFolders = [
    ...(await workspaceFolders("adapters")).map((name) => ({
      source: `adapters/${name}/src`,
      package: `adapters/${name}/`,
    })),
    ...exampleAdapters,
  ];
  for (const folder of adapterFolders) {
    for (const file of await sourceFilesUnder(folder.source)) {
      for (const specifier of file.imports) {
        const imported = packageName(specifier);
        const reach = isTestCode(file.path) ? folder.package : `${folder.source}/`;
        if (specifier.startsWith(".") && !posix.join(posix.dirname(file.path), specifier).startsWith(reach)) {
          refuse(file, specifier, "an adapter reaches outside its folder");
        }
        if (!imported.startsWith("@jobtasks/") && !adapters.includes(imported)) continue;
        if (imported === "@jobtasks/core") continue;
        if (imported === "@jobtasks/testkit" && isTestCode(file.path)) continue;
        refuse(file, specifier, "an adapter imports @jobtasks/core only, and @jobtasks/testkit in tests");
      }
    }
  }
  for (const file of await sourceFilesUnder("packages/server/src")) {
    for (const specifier of file.imports) {
      if (adapters.includes(packageName(specifier))) refuse(file, specifier, "the server imports no adapter");
    }
  }
  for (const file of await sourceFilesUnder("packages/core/src")) {
    for (const specifier of file.imports) {
      const imported = packageName(specifier);
      // By its own name it may (src/index.ts takes its zod so, for the package's conditions to apply).
      if ((imported.startsWith("@jobtasks/") && imported !== "@jobtasks/core") || adapters.includes(imported))
        refuse(file, specifier, "the core imports no other workspace package");
      if (imported.startsWith("@modelcontextprotocol/")) refuse(file, specifier, "the core imports no MCP SDK");
    }
  }
  return violations;
}

describe("import boundaries", () => {
  it("reads static, dynamic, type-only and side-effect imports", () => {
    const text = [
      'import { a } from "@jobtasks/core";',
      'import type { B } from "@jobtasks/testkit";',
      'export { c } from "./c.js";',
      'import "./side-effect.js";',
      'const lazy = await import("undici");',
      'let t: typeof import("zod");',
    ].join("\n");
    expect(importsOf(text)).toEqual([
      "@jobtasks/core",
      "@jobtasks/testkit",
      "./c.js",
      "./side-effect.js",
      "undici",
      "zod",
    ]);
  });

  it("finds every adapter and reads imports from each", async () => {
    const names = await workspaceFolders("adapters");
    expect(names.length).toBeGreaterThanOrEqual(4);
    for (const name of names) {
      const files = await sourceFilesUnder(`adapters/${name}/src`);
      expect(
        files.some((file) => file.imports.includes("@jobtasks/core")),
        name,
      ).toBe(true);
    }
  });

  it("adapters import only @jobtasks/core (and @jobtasks/testkit in tests); the server no adapter; the core no workspace package or MCP SDK", async () => {
    expect(await boundaryViolations()).toEqual([]);
  });

  it("the examples' adapters are read under the same rules as adapters/*", async () => {
    const folders = exampleAdapters.map((folder) => folder.source);
    expect(folders).toContain("examples/minimal-adapter/src");
    for (const folder of folders) expect((await sourceFilesUnder(folder)).length, folder).toBeGreaterThan(0);
  });

  it("no module re-exports with export *: every public name is listed where it is exported", async () => {
    const offenders: string[] = [];
    for (const parent of ["packages", "adapters", "examples"]) {
      for (const name of await workspaceFolders(parent)) {
        // Some examples are a config file and a README, with no source.
        const entries = await readdir(join(root, parent, name, "src"), { withFileTypes: true, recursive: true }).catch(
          () => [],
        );
        for (const entry of entries) {
          if (!entry.isFile() || !/\.(?:ts|mts)$/.test(entry.name)) continue;
          const path = join(entry.parentPath, entry.name);
          // zod whole, as core hands it on: its names are zod's to list.
          if (relative(root, path).split(sep).join("/") === coreZodModule) continue;
          if (exportStarPattern.test(await readFile(path, "utf8"))) offenders.push(relative(root, path));
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it("recognises export * in its forms, and not a listed export", () => {
    expect(exportStarPattern.test('export * from "./a.js";')).toBe(true);
    expect(exportStarPattern.test('export * as helpers from "./a.js";')).toBe(true);
    expect(exportStarPattern.test('export type * from "./a.js";')).toBe(true);
    expect(exportStarPattern.test('export { a, type B } from "./a.js";')).toBe(false);
  });

  it("only @jobtasks/core's zod module imports zod: every schema is built with the one copy core exports", async () => {
    const offenders: string[] = [];
    for (const directory of ["packages", "adapters", "examples", "test", "bench"]) {
      for (const file of await sourceFilesUnder(directory)) {
        const path = file.path;
        if (path.includes("node_modules/") || path.includes("/dist/") || path === coreZodModule || path === thisFile)
          continue;
        for (const specifier of file.imports)
          if (packageName(specifier) === "zod") offenders.push(`${path}: ${specifier}`);
      }
    }
    // The scaffold of `jobtasks new adapter`, whose adapters should share the one zod too.
    const templates = join(root, "packages/cli/templates");
    for (const entry of await readdir(templates, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts.tmpl")) continue;
      const path = join(entry.parentPath, entry.name);
      for (const specifier of importsOf(await readFile(path, "utf8")))
        if (packageName(specifier) === "zod") offenders.push(`${relative(root, path)}: ${specifier}`);
    }
    expect(offenders).toEqual([]);
    expect(importsOf(await readFile(join(root, coreZodModule), "utf8"))).toEqual(["zod", "zod"]);
  });

  it.each(knownExceptions)(
    "the allowed import $specifier in $file is still there (else drop it from the list)",
    async ({ file, specifier }) => {
      expect(importsOf(await readFile(join(root, file), "utf8"))).toContain(specifier);
    },
  );
});
