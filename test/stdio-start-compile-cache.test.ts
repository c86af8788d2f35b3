import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import * as nodeModule from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliBin } from "./support/cli-process.js";
import { resolveNode22 } from "./support/conformance-suite.js";
import { runToEnd, type Finished } from "./support/installed-package.js";

/**
 * A host that spawns a stdio server per conversation should pay for compiling jobtasks once. bin.js turns
 * on Node's compile cache (Node ≥ 22.1) for the modules it loads, and runs the command line's bundle and
 * core's zod through core's runCachedCommonJs, whose cache works on every Node (Node 20 has none of its
 * own). Both live in the OS temp dir unless NODE_COMPILE_CACHE says otherwise; a start must never depend on
 * either. Run with Node 22 whichever Node runs the suite (the one the conformance suite uses), and with
 * this one.
 */

const thisNodeHasCompileCache =
  typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === "function";

/** Runs `jobtasks --version` with `node`, its temp dir (where Node keeps the cache by default) `temporary`. */
function version(node: string, temporary: string): Promise<Finished> {
  return runToEnd(node, [cliBin, "--version"], {
    cwd: process.cwd(),
    env: { PATH: process.env["PATH"] ?? "", TMPDIR: temporary },
  });
}

const printsTheVersion = { code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/), stderr: "" };
const cacheEntries = (temporary: string) => readdirSync(join(temporary, "node-compile-cache"), { recursive: true });

/** The version a Node reports, such as v22.23.5. */
async function versionOf(node: string): Promise<string> {
  return (await runToEnd(node, ["--version"], { cwd: process.cwd(), env: {} })).stdout.trim();
}

/** jobtasks' own cache in `temporary`: each file's name and modification time. */
function ownCache(temporary: string): Record<string, number> {
  const [folder, ...others] = readdirSync(temporary).filter((name) => name.startsWith("jobtasks-compile-cache-"));
  expect(others).toEqual([]);
  const directory = join(temporary, folder!);
  return Object.fromEntries(readdirSync(directory).map((name) => [name, statSync(join(directory, name)).mtimeMs]));
}

let workspace: string;
let node22: string;
beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), "jobtasks-compile-cache-"));
  node22 = await resolveNode22();
}, 300_000);
afterAll(async () => {
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

describe("bin.js and Node's compile cache", () => {
  it("on Node 22: the first start fills the cache in the OS temp dir", async () => {
    const temporary = await mkdtemp(join(workspace, "node22-"));
    expect(await version(node22, temporary)).toEqual(printsTheVersion);
    // The bundle and its chunks, and the few modules before them, each get an entry.
    expect(cacheEntries(temporary).length).toBeGreaterThan(3);
  });

  it(`on this Node (${process.version}): ${thisNodeHasCompileCache ? "fills the cache too" : "writes no cache, having none"}`, async () => {
    const temporary = await mkdtemp(join(workspace, "this-node-"));
    expect(await version(process.execPath, temporary)).toEqual(printsTheVersion);
    if (thisNodeHasCompileCache) expect(cacheEntries(temporary).length).toBeGreaterThan(3);
    else expect(existsSync(join(temporary, "node-compile-cache"))).toBe(false);
  });

  it.each([
    ["Node 22", () => node22],
    [`this Node (${process.version})`, () => process.execPath],
  ])(
    "on %s: keeps the compiled bundle and zod in its own cache, and reads them at the next start",
    async (_name, node) => {
      const temporary = await mkdtemp(join(workspace, "own-"));
      expect(await version(node(), temporary)).toEqual(printsTheVersion);
      const written = ownCache(temporary);
      // The command line's bundle and core's zod, one file each.
      expect(Object.keys(written)).toHaveLength(2);
      // Read, not written again: a cache V8 turned down would be rewritten.
      expect(await version(node(), temporary)).toEqual(printsTheVersion);
      expect(ownCache(temporary)).toEqual(written);
    },
  );

  it("keeps a cache per Node side by side: a host's Node and the user's do not undo each other's", async () => {
    const temporary = await mkdtemp(join(workspace, "two-nodes-"));
    expect(await version(node22, temporary)).toEqual(printsTheVersion);
    const node22Cache = ownCache(temporary);
    expect(await version(process.execPath, temporary)).toEqual(printsTheVersion);
    const both = ownCache(temporary);
    expect(Object.keys(both)).toHaveLength(process.version === (await versionOf(node22)) ? 2 : 4);
    expect(await version(node22, temporary)).toEqual(printsTheVersion);
    expect(ownCache(temporary)).toEqual(both);
    expect(both).toMatchObject(node22Cache);
  });

  it("starts all the same, saying nothing, where the cache cannot be written", async () => {
    // A temp dir below a plain file: no folder can be made there.
    const notADirectory = join(workspace, "a-file");
    await writeFile(notADirectory, "");
    for (const node of [node22, process.execPath])
      expect(await version(node, join(notADirectory, "tmp"))).toEqual(printsTheVersion);
  });
});
