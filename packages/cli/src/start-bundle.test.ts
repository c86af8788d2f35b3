import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bundleFile, bundleManifestFile, isBundleCurrent, startCommandLine } from "./start-bundle.js";

// A package folder laid out as in the repository: cli/dist with the bundle and its manifest, and the
// projects it was built from (cli itself and a sibling "server"), each with its build info and package.json.
let root: string;
let dist: string;
let distUrl: URL;

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));
const importedBeforeTheBundle = ["@jobtasks/core", "./import-module.js"];
const builtFrom = [
  { buildInfo: "../tsconfig.tsbuildinfo", package: "jobtasks" },
  { buildInfo: "../../server/tsconfig.tsbuildinfo", package: "@jobtasks/server" },
];

async function file(path: string, modified: Date, text = "") {
  await writeFile(path, text);
  await utimes(path, modified, modified);
}

async function project(directory: string, name: string, builtAt: Date) {
  await mkdir(directory, { recursive: true });
  await writeFile(join(directory, "package.json"), JSON.stringify({ name }));
  await file(join(directory, "tsconfig.tsbuildinfo"), builtAt);
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "jobtasks-start-bundle-"));
  dist = join(root, "cli", "dist");
  await mkdir(dist, { recursive: true });
  distUrl = new URL(`${pathToFileURL(dist).href}/`);
  await project(join(root, "cli"), "jobtasks", at(10));
  await project(join(root, "server"), "@jobtasks/server", at(10));
  await file(join(dist, bundleManifestFile), at(20), JSON.stringify({ builtFrom, importedBeforeTheBundle }));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("bin.js runs the bundle only while it is current", () => {
  it("runs the bundle built after every project it holds", async () => {
    await file(join(dist, bundleFile), at(20));
    expect(isBundleCurrent(distUrl)).toBe(true);
  });

  it("runs the modules tsc wrote when a project was rebuilt after the bundle (a `tsc -b` alone)", async () => {
    await file(join(dist, bundleFile), at(20));
    await file(join(root, "server", "tsconfig.tsbuildinfo"), at(30));
    expect(isBundleCurrent(distUrl)).toBe(false);
  });

  it("runs the modules tsc wrote when there is no bundle, or no readable manifest", async () => {
    expect(isBundleCurrent(distUrl)).toBe(false);
    await file(join(dist, bundleFile), at(20));
    for (const manifest of [
      "not json",
      JSON.stringify({ builtFrom: "one file", importedBeforeTheBundle }),
      JSON.stringify({ builtFrom: ["a"], importedBeforeTheBundle }),
      // A manifest from before the bundle was CommonJS: its bundle would run without what it requires.
      JSON.stringify({ builtFrom }),
      JSON.stringify({ builtFrom, importedBeforeTheBundle: [7] }),
    ]) {
      await file(join(dist, bundleManifestFile), at(20), manifest);
      expect(isBundleCurrent(distUrl)).toBe(false);
    }
  });

  it("runs the bundle of an installed package, which holds no build info", async () => {
    await rm(join(root, "cli", "tsconfig.tsbuildinfo"));
    await rm(join(root, "server"), { recursive: true });
    // npm gives every file of a tarball the same old date, the bundle included.
    await file(join(dist, bundleFile), new Date("1985-10-26T08:15:00Z"));
    expect(isBundleCurrent(distUrl)).toBe(true);
  });

  it("does not count newer build info of another package found at a project's path", async () => {
    // Installed, ../../server may be a folder of the user's: its build info says nothing about the bundle.
    await rm(join(root, "server"), { recursive: true });
    await project(join(root, "server"), "someone-elses-server", at(30));
    await file(join(dist, bundleFile), new Date("1985-10-26T08:15:00Z"));
    await rm(join(root, "cli", "tsconfig.tsbuildinfo"));
    expect(isBundleCurrent(distUrl)).toBe(true);
  });
});

describe("startCommandLine", () => {
  // What each form of the command line records when it runs, in place of running jobtasks.
  const started = () => (globalThis as { startedForTest?: unknown }).startedForTest;
  beforeEach(async () => {
    delete (globalThis as { startedForTest?: unknown }).startedForTest;
    await writeFile(join(dist, "helper.mjs"), 'export const name = "an ES module imported first";\n');
    await writeFile(
      join(dist, "run-command-line.js"),
      "globalThis.startedForTest = { form: 'the modules tsc wrote' };\n",
    );
    await file(
      join(dist, bundleFile),
      at(20),
      `const helper = require("./helper.mjs");
globalThis.startedForTest = {
  form: "the bundle",
  helper: helper.name,
  builtIn: require("node:path").basename(__filename),
  resolves: typeof require.resolve,
  dirname: __dirname,
};
`,
    );
    await file(
      join(dist, bundleManifestFile),
      at(20),
      JSON.stringify({ builtFrom, importedBeforeTheBundle: ["./helper.mjs"] }),
    );
  });

  it("runs the current bundle, handing it the ES modules its manifest lists and Node's require for the rest", async () => {
    await startCommandLine(distUrl);
    expect(started()).toEqual({
      form: "the bundle",
      helper: "an ES module imported first",
      builtIn: bundleFile,
      resolves: "function",
      dirname: dist,
    });
  });

  it("runs the modules tsc wrote when the bundle is stale", async () => {
    await file(join(root, "server", "tsconfig.tsbuildinfo"), at(30));
    await startCommandLine(distUrl);
    expect(started()).toEqual({ form: "the modules tsc wrote" });
  });
});
