import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bundleFile, bundleManifestFile, commandLineModule, isBundleCurrent } from "./start-bundle.js";

// A package folder laid out as in the repository: dist/ with the bundle and its manifest, and the
// build-info files of the projects it was built from (../tsconfig.tsbuildinfo, ../../server/...).
let root: string;
let dist: string;
let distUrl: URL;

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));

async function file(path: string, modified: Date, text = "") {
  await writeFile(path, text);
  await utimes(path, modified, modified);
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "jobtasks-start-bundle-"));
  dist = join(root, "cli", "dist");
  await mkdir(dist, { recursive: true });
  await mkdir(join(root, "server"));
  distUrl = new URL(`${pathToFileURL(dist).href}/`);
  await file(join(root, "cli", "tsconfig.tsbuildinfo"), at(10));
  await file(join(root, "server", "tsconfig.tsbuildinfo"), at(10));
  await file(
    join(dist, bundleManifestFile),
    at(20),
    JSON.stringify({ builtFrom: ["../tsconfig.tsbuildinfo", "../../server/tsconfig.tsbuildinfo"] }),
  );
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("bin.js runs the bundle only while it is current", () => {
  it("runs the bundle built after every project it holds", async () => {
    await file(join(dist, bundleFile), at(20));
    expect(isBundleCurrent(distUrl)).toBe(true);
    expect(commandLineModule(distUrl)).toBe(`./${bundleFile}`);
  });

  it("runs the modules tsc wrote when a project was rebuilt after the bundle (a `tsc -b` alone)", async () => {
    await file(join(dist, bundleFile), at(20));
    await file(join(root, "server", "tsconfig.tsbuildinfo"), at(30));
    expect(isBundleCurrent(distUrl)).toBe(false);
    expect(commandLineModule(distUrl)).toBe("./run-command-line.js");
  });

  it("runs the modules tsc wrote when there is no bundle, or no readable manifest", async () => {
    expect(commandLineModule(distUrl)).toBe("./run-command-line.js");
    await file(join(dist, bundleFile), at(20));
    await file(join(dist, bundleManifestFile), at(20), "not json");
    expect(commandLineModule(distUrl)).toBe("./run-command-line.js");
    await file(join(dist, bundleManifestFile), at(20), JSON.stringify({ builtFrom: "one file" }));
    expect(commandLineModule(distUrl)).toBe("./run-command-line.js");
  });

  it("runs the bundle of an installed package, which holds no build-info files", async () => {
    await rm(join(root, "cli", "tsconfig.tsbuildinfo"));
    await rm(join(root, "server"), { recursive: true });
    // npm gives every file of a tarball the same old date, the bundle included.
    await file(join(dist, bundleFile), new Date("1985-10-26T08:15:00Z"));
    expect(commandLineModule(distUrl)).toBe(`./${bundleFile}`);
  });
});
