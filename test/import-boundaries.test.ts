import { readdir, readFile } from "node:fs/promises";
import { join, posix, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The layering the architecture promises (docs/architecture.md, docs/writing-an-adapter.md): an adapter
 * builds on the public kit alone, the server knows no adapter, the core stands on its own, one zod. The
 * rules by package name are oxlint's `no-restricted-imports`, per folder, in .oxlintrc.json, so `pnpm lint`
 * refuses a violation where it is written; the test below runs oxlint on fixture files, so those rules
 * cannot silently stop working. What stays here is what that rule cannot say: that a relative import stays
 * inside its adapter's folder (it matches the specifier, not where the path lands, and the same `../` is
 * fine one folder down), and imports in files oxlint does not read (the scaffold's `.ts.tmpl`). A regex
 * over `from "..."` and `import("...")` is enough for those because the tree is TypeScript modules only.
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

/** The violations of the rules in one list of "file → specifier (why)" lines, empty when the tree keeps them. */
async function boundaryViolations(): Promise<string[]> {
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
        const reach = isTestCode(file.path) ? folder.package : `${folder.source}/`;
        if (specifier.startsWith(".") && !posix.join(posix.dirname(file.path), specifier).startsWith(reach)) {
          refuse(file, specifier, "an adapter reaches outside its folder");
        }
      }
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

  it("an adapter's relative imports stay in its folder (its package, for tests)", async () => {
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

  it("the scaffold's adapters use core's zod too, and core's zod module takes zod whole", async () => {
    // The scaffold of `jobtasks new adapter` (files oxlint does not read); the tree's own files are oxlint's.
    const offenders: string[] = [];
    const templates = join(root, "packages/cli/templates");
    for (const entry of await readdir(templates, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts.tmpl")) continue;
      const path = join(entry.parentPath, entry.name);
      for (const specifier of importsOf(await readFile(path, "utf8")))
        if (packageName(specifier) === "zod") offenders.push(`${relative(root, path)}: ${specifier}`);
    }
    expect(offenders).toEqual([]);
    // Whole: a plain re-export of the zod the core depends on.
    expect(importsOf(await readFile(join(root, coreZodModule), "utf8"))).toEqual(["zod", "zod"]);
  });

  it.each(knownExceptions)(
    "the allowed import $specifier in $file is still there (else drop it from the list)",
    async ({ file, specifier }) => {
      expect(importsOf(await readFile(join(root, file), "utf8"))).toContain(specifier);
    },
  );
});
