import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// Each run is a process of its own, as each stdio start is: the cache is written as a process exits and
// read by the next. The module under test is the built one, which is what bin.js and dist/zod.js run.
const builtModule = fileURLToPath(new URL("../dist/cached-script.js", import.meta.url));
const runner = `import { createRequire } from "node:module";
import { enableScriptCache, runCachedCommonJs } from ${JSON.stringify(pathToFileURL(builtModule).href)};
if (process.env.ENABLE !== "no") enableScriptCache();
const file = process.argv[1];
const { cache, exports } = runCachedCommonJs(file, createRequire(file));
process.stdout.write(JSON.stringify({ cache, exports }));
// Staying on, then killed: no exit event, so only the write timer can have written the cache.
if (process.env.STAY_MS) setTimeout(() => process.kill(process.pid, "SIGKILL"), Number(process.env.STAY_MS));`;

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

function spawnRunner(environment: Record<string, string>) {
  return spawnSync(process.execPath, ["--input-type=module", "-e", runner, script], {
    env: { PATH: process.env["PATH"] ?? "", ...environment },
    encoding: "utf8",
  });
}

function run(environment: Record<string, string> = { NODE_COMPILE_CACHE: cacheRoot }) {
  const child = spawnRunner(environment);
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

  it("compiles a rewritten file anew, even one of the same length and date, and keeps one cache per file", () => {
    const date = new Date("1985-10-26T08:15:00Z");
    utimesSync(script, date, date);
    run();
    const [before] = cacheFiles();
    // V8 checks only the source's length, and npm gives every file of a package the same date: the old
    // code would run for the upgraded file if the cache's name did not change with what it holds.
    writeFileSync(script, 'module.exports = { answer: 41, joined: require("node:path").join("a", "b") };\n');
    utimesSync(script, date, date);
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

  it("writes nothing in a process that did not call enableScriptCache: a library importing the core leaves no files", () => {
    expect(run({ NODE_COMPILE_CACHE: cacheRoot, ENABLE: "no" })).toEqual({
      cache: "off",
      exports: { answer: 42, joined: join("a", "b") },
    });
    // Only jobtasks' folder: on Node ≥ 22.1, NODE_COMPILE_CACHE alone turns Node's own cache on, in cacheRoot.
    expect(existsSync(join(cacheRoot, "jobtasks"))).toBe(false);
  });

  it("writes 2 s after the start in a process that keeps running (a server), without waiting for its exit", () => {
    const child = spawnRunner({ NODE_COMPILE_CACHE: cacheRoot, STAY_MS: "3000" });
    expect(child.signal).toBe("SIGKILL");
    expect(JSON.parse(child.stdout)).toMatchObject({ cache: "written later" });
    expect(cacheFiles()).toHaveLength(1);
    expect(run().cache).toBe("used");
  });

  it("writes a cache it read again when the run compiled much more: the first command run does not decide for good", () => {
    // A function run only when asked: the first process compiles none of it, the second all of it.
    const statements = Array.from({ length: 400 }, (_, index) => `  total += Math.imul(total + ${index}, 31) | 0;`);
    writeFileSync(
      script,
      `function busy() {\n  let total = 0;\n${statements.join("\n")}\n  return total;\n}\n` +
        'module.exports = { answer: 42, busy: process.env.CALL === "yes" ? typeof busy() : "not run" };\n',
    );
    expect(run()).toEqual({ cache: "written later", exports: { answer: 42, busy: "not run" } });
    const cacheFile = join(cacheRoot, "jobtasks", cacheFiles()[0]!);
    const first = statSync(cacheFile).size;
    expect(run({ NODE_COMPILE_CACHE: cacheRoot, CALL: "yes" })).toEqual({
      cache: "used",
      exports: { answer: 42, busy: "number" },
    });
    const second = statSync(cacheFile).size;
    expect(second).toBeGreaterThan(first * 1.1);
    // A run that compiles nothing new leaves it as it is.
    const written = statSync(cacheFile).mtimeMs;
    expect(run({ NODE_COMPILE_CACHE: cacheRoot, CALL: "yes" }).cache).toBe("used");
    expect(statSync(cacheFile)).toMatchObject({ size: second, mtimeMs: written });
  });

  it("does not use a cache folder that is a symbolic link", () => {
    const elsewhere = join(workspace, "elsewhere");
    mkdirSync(elsewhere);
    mkdirSync(cacheRoot);
    symlinkSync(elsewhere, join(cacheRoot, "jobtasks"));
    expect(run().cache).toBe("off");
    expect(readdirSync(elsewhere)).toEqual([]);
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
