import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Conventions every package under adapters/ keeps (docs/writing-an-adapter.md): a README, and a test file
 * that runs the testkit's conformance suite. Adapters listed in `followTheAnatomy` also keep the file
 * names of the guide's anatomy and use only the public kit. The older adapters join that list once they
 * are laid out that way.
 */

const adaptersDirectory = fileURLToPath(new URL("../adapters/", import.meta.url));
const followTheAnatomy = ["gitlab-ci", "aws-batch", "github-actions", "rest"];

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
    expect(adapterNames).toEqual(expect.arrayContaining(followTheAnatomy));
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
    const root = join(adaptersDirectory, kind);

    it("has the anatomy's files", async () => {
      const expected = [
        "README.md",
        "src/index.ts",
        "src/adapter-definition.ts",
        `src/${kind}-adapter.ts`,
        `src/${kind}-options.ts`,
        `src/${kind}-api.ts`,
        `src/map-${kind}-status.ts`,
        `src/map-${kind}-status.test.ts`,
        "src/conformance.test.ts",
        "src/__fixtures__",
      ];
      const missing = expected.filter((file) => !existsSync(join(root, file)));
      expect(missing, `missing in adapters/${kind}`).toEqual([]);
      const tools = (await readdir(join(root, "src"))).filter((file) => file.endsWith("-tool.ts"));
      expect(tools, "one <name>-tool.ts file per tool").not.toEqual([]);
    });

    it("declares its kind in adapter-definition.ts and its public options type as the schema's z.input", async () => {
      expect(await readFile(join(root, "src/adapter-definition.ts"), "utf8")).toContain(`kind: "${kind}"`);
      expect(await readFile(join(root, `src/${kind}-options.ts`), "utf8")).toMatch(
        /export type \w+ = z\.input<typeof \w+>/,
      );
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
