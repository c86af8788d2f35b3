import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// Each run is a process of its own, as each stdio start is: the cache is written as a process exits and
// read by the next. The module under test is the built one, which is what bin.js and dist/zod.js run.
const builtModule = fileURLToPath(new URL("../dist/cached-script.js", import.meta.url));
const runner = `import { createRequire } from "node:module";
import { runCachedCommonJs } from ${JSON.stringify(pathToFileURL(builtModule).href)};
const file = process.argv[1];
const { cache, exports } = runCachedCommonJs(file, createRequire(file));
process.stdout.write(JSON.stringify({ cache, exports }));`;

let workspace: string;
let script: string;
let cacheRoot: string;

beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), "jobtasks-cached-script-"));
  script = join(workspace, "answer.cjs");
  writeFileSync(script, 'module.exports = { answer: 42, joined: require("node:path").join("a", "b") };\n');
  cacheRoot = join(workspace, "cache");
});

afterEach(() => {
  rmSync(workspace, { recursive: true, force: true });
});

function run(environment: Record<string, string> = { NODE_COMPILE_CACHE: cacheRoot }) {
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", runner, script], {
    env: { PATH: process.env["PATH"] ?? "", ...environment },
    encoding: "utf8",
  });
  expect(child.stderr).toBe("");
  expect(child.status).toBe(0);
  return JSON.parse(child.stdout) as { cache: string; exports: Record<string, unknown> };
}

const cacheFiles = () => readdirSync(join(cacheRoot, "jobtasks"));

describe("runCachedCommonJs", () => {
  it("runs a CommonJS file with require, writes its compiled code as the process exits, and reads it next time", () => {
    expect(run()).toEqual({ cache: "written later", exports: { answer: 42, joined: join("a", "b") } });
    expect(cacheFiles()).toEqual([expect.stringMatching(/^[0-9a-f]{24}-[0-9a-f]{24}\.bin$/)]);
    expect(run()).toEqual({ cache: "used", exports: { answer: 42, joined: join("a", "b") } });
  });

  it("compiles a rewritten file anew, even one of the same length, and keeps one cache per file", () => {
    run();
    const [before] = cacheFiles();
    // V8 checks only the source's length: the old code would run for this file if the name did not change.
    writeFileSync(script, 'module.exports = { answer: 41, joined: require("node:path").join("a", "b") };\n');
    const later = new Date(Date.now() + 60_000);
    utimesSync(script, later, later);
    expect(run()).toEqual({ cache: "written later", exports: { answer: 41, joined: join("a", "b") } });
    const after = cacheFiles();
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before);
    expect(run().cache).toBe("used");
  });

  it("compiles anew, and rewrites, a cache file V8 cannot use", () => {
    run();
    const [file] = cacheFiles();
    writeFileSync(join(cacheRoot, "jobtasks", file!), "not compiled code");
    expect(run()).toEqual({ cache: "written later", exports: { answer: 42, joined: join("a", "b") } });
    expect(run().cache).toBe("used");
  });

  it("keeps no cache with NODE_DISABLE_COMPILE_CACHE=1, as Node's own", () => {
    expect(run({ NODE_COMPILE_CACHE: cacheRoot, NODE_DISABLE_COMPILE_CACHE: "1" })).toEqual({
      cache: "off",
      exports: { answer: 42, joined: join("a", "b") },
    });
    expect(existsSync(cacheRoot)).toBe(false);
  });

  it("keeps its cache in the OS temp dir by default, in a folder only this user can write", () => {
    const temporary = join(workspace, "tmp");
    mkdirSync(temporary);
    expect(run({ TMPDIR: temporary }).cache).toBe("written later");
    const [folder] = readdirSync(temporary);
    expect(folder).toMatch(/^jobtasks-compile-cache-/);
    expect(run({ TMPDIR: temporary }).cache).toBe("used");
    // A folder others may write to could hold compiled code planted by them: it is not read.
    chmodSync(join(temporary, folder!), 0o777);
    expect(run({ TMPDIR: temporary })).toEqual({ cache: "off", exports: { answer: 42, joined: join("a", "b") } });
  });

  it("runs all the same where no cache folder can be made", () => {
    writeFileSync(join(workspace, "a-file"), "");
    expect(run({ NODE_COMPILE_CACHE: join(workspace, "a-file", "cache") })).toEqual({
      cache: "off",
      exports: { answer: 42, joined: join("a", "b") },
    });
  });
});
