import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { scaffoldAdapter, templateValues } from "./scaffold-adapter.js";

const run = promisify(execFile);
const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url));
// Inside the repository (gitignored), so that zod, undici, vitest and typescript resolve from its root.
const workArea = join(repositoryRoot, ".jobtasks-test", `scaffold-${process.pid}-${Date.now()}`);
afterAll(() => rm(workArea, { recursive: true, force: true }));

async function runTool(command: string, args: string[], cwd: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(join(repositoryRoot, "node_modules", ".bin", command), args, {
      cwd,
      env: { ...process.env, CI: "", NO_COLOR: "1" },
      timeout: 180_000,
    });
    return { code: 0, output: withoutColours(stdout + stderr) };
  } catch (error) {
    const failed = error as { code: number; stdout?: string; stderr?: string };
    return { code: failed.code, output: withoutColours(`${failed.stdout ?? ""}${failed.stderr ?? ""}`) };
  }
}

function withoutColours(text: string): string {
  return text.replace(/\x1b\[[0-9;]*m/g, "");
}

describe("jobtasks new adapter", () => {
  it(
    "writes a package with the adapter anatomy that typechecks, lints and passes its own tests",
    { timeout: 240_000 },
    async () => {
      const directory = join(workArea, "render-farm");
      const scaffolded = await scaffoldAdapter({ kind: "render-farm", directory, coreVersion: "workspace:*" });
      expect(scaffolded.files).toEqual([
        ".gitignore",
        ".oxlintrc.json",
        "README.md",
        "package.json",
        "src/__fixtures__/job.json",
        "src/adapter-definition.ts",
        "src/approval.test.ts",
        "src/approval.ts",
        "src/conformance.test.ts",
        "src/index.ts",
        "src/job-ref.ts",
        "src/map-render-farm-status.test.ts",
        "src/map-render-farm-status.ts",
        "src/render-farm-adapter.ts",
        "src/render-farm-api.ts",
        "src/render-farm-options.ts",
        "src/start-job-tool.test.ts",
        "src/start-job-tool.ts",
        "tsconfig.build.json",
        "tsconfig.json",
        "vitest.config.ts",
      ]);
      const packageJson = JSON.parse(await readFile(join(directory, "package.json"), "utf8"));
      expect(packageJson).toMatchObject({
        name: "jobtasks-adapter-render-farm",
        dependencies: { "@jobtasks/core": "workspace:*" },
      });
      // Typechecked as strictly as the repository's own adapters, so it meets the contract the same way.
      const strictness = ["strict", "noUncheckedIndexedAccess", "noImplicitOverride", "exactOptionalPropertyTypes"];
      const pick = (options: Record<string, unknown>) =>
        Object.fromEntries(strictness.map((name) => [name, options[name]]));
      const generatedTsconfig = JSON.parse(await readFile(join(directory, "tsconfig.json"), "utf8"));
      const baseTsconfig = JSON.parse(await readFile(join(repositoryRoot, "tsconfig.base.json"), "utf8"));
      expect(pick(generatedTsconfig.compilerOptions)).toEqual(pick(baseTsconfig.compilerOptions));
      // What git must leave out: the install, the build, packed tarballs.
      const ignored = (await readFile(join(directory, ".gitignore"), "utf8")).split("\n");
      expect(ignored).toEqual(expect.arrayContaining(["node_modules/", "dist/", "*.tgz"]));
      // A creating POST is not handed the caller's signal: it outlives a caller that leaves (the guide's §4).
      const apiSource = await readFile(join(directory, "src/render-farm-api.ts"), "utf8");
      expect(apiSource).toMatch(/async startJob\(input: [^)]*\): Promise/);
      const adapterSource = await readFile(join(directory, "src/render-farm-adapter.ts"), "utf8");
      expect(adapterSource).toContain("export function renderFarm(");
      expect(adapterSource).toContain("RENDER_FARM_TOKEN");
      // Declared, so the core redacts it: the adapter redacts nothing by hand.
      expect(adapterSource).toContain("secrets: [token]");
      expect(adapterSource).not.toContain("redactSecrets");
      // Refs are checked by the server against the declared schema (and by the conformance suite it runs).
      expect(adapterSource).toContain("refSchema: jobRefSchema");
      expect(adapterSource).toContain("configErrorFromIssues(parsed.error)");
      expect(adapterSource).not.toMatch(/\{\{\w+\}\}/);

      // The built jobtasks packages, linked as an install would place them.
      await mkdir(join(directory, "node_modules", "@jobtasks"), { recursive: true });
      for (const name of ["core", "testkit"])
        await symlink(
          join(repositoryRoot, "packages", name),
          join(directory, "node_modules", "@jobtasks", name),
          "dir",
        );

      const typecheck = await runTool("tsc", ["-p", join(directory, "tsconfig.json")], directory);
      expect(typecheck.output).toBe("");
      expect(typecheck.code).toBe(0);
      // The same oxlint as the repository's, with the package's own config. The files are named one by one
      // because the work area is gitignored, and oxlint skips what git ignores when given a folder.
      const sources = scaffolded.files.filter((file) => file.endsWith(".ts"));
      const lint = await runTool("oxlint", ["--config", ".oxlintrc.json", ...sources], directory);
      expect(lint.code, lint.output).toBe(0);
      expect(lint.output).toContain(`Found 0 warnings and 0 errors.\nFinished in`);
      expect(lint.output).toContain(`on ${sources.length} files`);
      const tests = await runTool("vitest", ["run", "--root", directory, "--reporter", "verbose"], directory);
      expect(tests.code, tests.output).toBe(0);
      expect(tests.output).toMatch(/Test Files\s+4 passed/);
      // The conformance suite ran, not only the table, and nothing in it was skipped.
      expect(tests.output).toContain("src/conformance.test.ts");
      expect(tests.output).not.toMatch(/skipped|todo/);
      expect(Number(/Tests\s+(\d+) passed/.exec(tests.output)?.[1])).toBeGreaterThan(25);
      // The worked approval, through the suite: the question is read, answered, and the job API hears it.
      expect(tests.output).toMatch(/✓ .*lists input requests for a job waiting for input, and delivers the answers/);
      expect(tests.output).toMatch(/✓ .*maps waiting_for_approval to input_required/);
      // The start outlives its caller, and a lost answer says the job may exist.
      expect(tests.output).toMatch(/✓ .*outlives a caller that leaves once the POST is sent/);
      expect(tests.output).toMatch(/✓ .*says the job may exist after a dropped connection/);
    },
  );

  it("depends on the workspace's packages inside a jobtasks checkout, on released ones elsewhere", async () => {
    const inside = join(workArea, "inside");
    await scaffoldAdapter({ kind: "inside", directory: inside });
    expect(JSON.parse(await readFile(join(inside, "package.json"), "utf8")).dependencies["@jobtasks/core"]).toBe(
      "workspace:*",
    );
    const outside = await mkdtemp(join(tmpdir(), "jobtasks-scaffold-"));
    try {
      await scaffoldAdapter({ kind: "outside", directory: join(outside, "outside") });
      expect(
        JSON.parse(await readFile(join(outside, "outside", "package.json"), "utf8")).dependencies["@jobtasks/core"],
      ).toMatch(/^\^\d+\.\d+\.\d+/);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("refuses a kind that cannot name files and identifiers", async () => {
    await expect(scaffoldAdapter({ kind: "My CI", directory: join(workArea, "bad") })).rejects.toThrow(
      /at kind: "My CI" is not a kind/,
    );
    await expect(scaffoldAdapter({ kind: "-ci", directory: join(workArea, "bad") })).rejects.toThrow(/is not a kind/);
  });

  it("never writes into a folder that holds something", async () => {
    const directory = join(workArea, "taken");
    await mkdir(directory, { recursive: true });
    await writeFile(join(directory, "keep.txt"), "mine");
    await expect(scaffoldAdapter({ kind: "taken", directory })).rejects.toThrow(/at --dir: .* already exists/);
    expect(await readFile(join(directory, "keep.txt"), "utf8")).toBe("mine");
  });

  it("derives every identifier from the kind", () => {
    expect(templateValues("my-ci", "p", "^1.0.0")).toMatchObject({
      camelName: "myCi",
      pascalName: "MyCi",
      snakeName: "my_ci",
      envPrefix: "MY_CI",
    });
  });
});
