import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Conventions every package under adapters/ keeps (docs/writing-an-adapter.md): a README, and a test file
 * that runs the testkit's conformance suite. Adapters listed in `followTheAnatomy` also keep the file
 * names of the guide's anatomy and depend on the public kit only. So does the demo adapter, the first one
 * a new user runs, although it is no package of adapters/: its package also holds the demo job API
 * (src/demo-api/), so the adapter's files sit in src/demo-adapter/ beside it, and the package's
 * src/index.ts exports both. Every one of them, the minimal example adapter and the package
 * `jobtasks new adapter` writes keep their job reference in one `<job>-ref.ts` (`run-ref.ts`, `batch-job-ref.ts`): the `<job>RefSchema` its adapter declares as its
 * refSchema, and the `<Job>Ref` type. What adapters import is oxlint's to check (.oxlintrc.json: only
 * `<kind>-api.ts` and its transport speak to the upstream; the kit alone), and
 * test/import-rules-lint.test.ts proves those rules.
 */

const adaptersDirectory = fileURLToPath(new URL("../adapters/", import.meta.url));
const followTheAnatomy = ["gitlab-ci", "aws-batch", "github-actions", "rest", "kubernetes", "demo"];
/** Adapters outside adapters/<kind>/: their package, and the folder in it with the adapter's files. */
const placedElsewhere: Record<string, { root: string; source: string }> = {
  demo: { root: fileURLToPath(new URL("../examples/demo/", import.meta.url)), source: "src/demo-adapter" },
  "memory-jobs": { root: fileURLToPath(new URL("../examples/minimal-adapter/", import.meta.url)), source: "src" },
};
/** Adapters that keep their job reference in a `<job>-ref.ts`: the anatomy's, the minimal example's, the scaffold's. */
const keepTheirRefFile = [...followTheAnatomy, "memory-jobs", "__kind__"];
/** The scaffold's files are templates, `<name>.ts.tmpl`, with `__kind__` where the kind goes. */
const templates = fileURLToPath(new URL("../packages/cli/templates/adapter/", import.meta.url));

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

  describe.each(keepTheirRefFile)("%s", (kind) => {
    const { root, source } =
      kind === "__kind__"
        ? { root: templates, source: "src" }
        : (placedElsewhere[kind] ?? { root: join(adaptersDirectory, kind), source: "src" });
    const extension = kind === "__kind__" ? ".ts.tmpl" : ".ts";

    it("keeps its job reference in one <job>-ref.ts: the <job>RefSchema it declares as refSchema, and the <Job>Ref type", async () => {
      const files = (await readdir(join(root, source))).filter((file) => !file.endsWith(`.test${extension}`));
      expect(files.filter((file) => file.endsWith(`-reference${extension}`))).toEqual([]);
      const refFiles = files.filter((file) => file.endsWith(`-ref${extension}`));
      expect(refFiles, `one <job>-ref.ts in ${join(root, source)}`).toHaveLength(1);
      const refFile = refFiles[0]!;
      const words = refFile.slice(0, -extension.length).split("-");
      const capitalised = words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join("");
      const schemaName = `${capitalised[0]!.toLowerCase()}${capitalised.slice(1)}Schema`;
      const refText = await readFile(join(root, source, refFile), "utf8");
      expect(refText).toMatch(new RegExp(`export const ${schemaName}\\b`));
      expect(refText).toMatch(new RegExp(`export type ${capitalised}\\b`));
      const adapterText = await readFile(join(root, source, `${kind}-adapter${extension}`), "utf8");
      expect(adapterText).toMatch(
        new RegExp(`import \\{[^}]*\\b${schemaName}\\b[^}]*\\} from "\\./${words.join("-")}\\.js"`),
      );
      expect(adapterText).toMatch(new RegExp(`refSchema: ${schemaName}\\b`));
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

    it("depends on the public kit only: nothing from @jobtasks/server", async () => {
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
    });
  });
});
