import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { Script } from "node:vm";

/**
 * Runs a CommonJS file with V8's compiled code of it kept on disk between runs. An agent host spawns a
 * stdio server per conversation, and compiling what a start runs was a third of it. Node ≥ 22.1 keeps such
 * a cache for the modules it loads (module.enableCompileCache, which bin.js turns on); Node 20 has none, and
 * code run through `vm` gets none on any Node. The bundles that a start runs (the command line, and zod in
 * @jobtasks/core) are loaded through here, so every Node gets one.
 *
 * Writing a cache is a program's choice, as Node's own is: nothing is written until the process calls
 * enableScriptCache() (bin.js does, first), so a library that imports @jobtasks/core leaves no files. The
 * cache is only ever a saving: a file that cannot be read, written or trusted means compiling anew, never
 * a failed start. It follows Node's own switches: NODE_DISABLE_COMPILE_CACHE=1 turns it off, and
 * NODE_COMPILE_CACHE=<dir> puts it in <dir>/jobtasks; else it is a folder of this user's (in the OS temp
 * dir, or on Windows in LOCALAPPDATA), used only while no one else can write to it: compiled code read from
 * a folder another user controls would run as ours.
 */
export type CacheOutcome = "used" | "written later" | "off";

export interface CachedScriptResult {
  /** What the file set `module.exports` to. */
  exports: unknown;
  /** Whether compiled code was read from the cache, will be written to it, or no cache is in use. */
  cache: CacheOutcome;
}

/** Whether this process keeps compiled code: one flag for every copy of this module in it. */
const enabledKey = Symbol.for("@jobtasks/core/cached-script:enabled");

/** Lets runCachedCommonJs keep compiled code on disk, for this process. */
export function enableScriptCache(): void {
  (globalThis as Record<symbol, unknown>)[enabledKey] = true;
}

/**
 * When the compiled code is written: 2 s after the start or at exit, whichever comes first, so that it
 * holds what answering the first requests compiled, and a short command (`--version`) writes it too.
 */
const writeDelayMs = 2_000;

/**
 * A cache that was read is written again when the code compiled since makes it this much larger: the first
 * command run after a build (`--version`, or one config) must not decide for good what every later start
 * finds compiled. What V8 writes holds what it read, so a cache only grows until every path has run once.
 */
const growthWorthWriting = 1.1;

export function runCachedCommonJs(file: string, requireFromFile: (specifier: string) => unknown): CachedScriptResult {
  const bytes = readFileSync(file);
  // An ASCII file (the bundles are: their build says so) is decoded byte for byte, several times faster.
  const source = isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
  const cacheFile = enabled() ? cacheFileFor(file, bytes) : undefined;
  const cachedData = cacheFile === undefined ? undefined : readIfPresent(cacheFile);
  // The function CommonJS runs a file as (Module.wrap's), so the file sees exports, require, module,
  // __filename and __dirname as it would from require().
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;
  const script = new Script(wrapped, { filename: file, ...(cachedData ? { cachedData } : {}) });
  const used = cachedData !== undefined && !script.cachedDataRejected;
  const cache: CacheOutcome = cacheFile === undefined ? "off" : used ? "used" : "written later";
  // Before the file runs: a command may end the process while it does (`jobtasks --version` does).
  if (cacheFile !== undefined) writeLater(script, cacheFile, used ? cachedData.length : 0);
  const module = { exports: {} as unknown };
  const run = script.runInThisContext() as (...parameters: unknown[]) => void;
  run.call(module.exports, module.exports, requireFromFile, module, file, dirname(file));
  return { exports: module.exports, cache };
}

function enabled(): boolean {
  return (globalThis as Record<symbol, unknown>)[enabledKey] === true;
}

/** Once, at the first of a timer and the process's exit; a cache that was read only if it grew enough. */
function writeLater(script: Script, cacheFile: string, bytesRead: number): void {
  let done = false;
  const write = () => {
    if (done) return;
    done = true;
    process.off("exit", write);
    clearTimeout(timer);
    writeCache(cacheFile, script, bytesRead);
  };
  const timer = setTimeout(write, writeDelayMs);
  timer.unref();
  process.once("exit", write);
}

function writeCache(cacheFile: string, script: Script, bytesRead: number): void {
  const temporary = `${cacheFile}.${process.pid}.tmp`;
  try {
    const data = script.createCachedData();
    if (bytesRead > 0 && data.length < bytesRead * growthWorthWriting) return;
    writeFileSync(temporary, data, { mode: 0o600 });
    renameSync(temporary, cacheFile);
    removeOlderCaches(cacheFile);
  } catch {
    // A cache is a saving, never a requirement.
    rmSync(temporary, { force: true });
  }
}

/** This file's caches for this Node from before it was rebuilt: one per build would pile up. */
function removeOlderCaches(cacheFile: string): void {
  const directory = dirname(cacheFile);
  const name = basename(cacheFile);
  const sameFileAndNode = name.slice(0, name.indexOf("-") + 1);
  for (const entry of readdirSync(directory)) {
    if (entry !== name && entry.startsWith(sameFileAndNode) && entry.endsWith(".bin")) {
      rmSync(join(directory, entry), { force: true });
    }
  }
}

function readIfPresent(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex").slice(0, 24);

/**
 * Where the compiled code of `file` is kept, or undefined when there is no cache to use. The name is the
 * file's path with the Node build (each Node keeps its own: V8 rejects another's code), then, after a dash,
 * the hash of the very bytes compiled: V8 itself checks only the source's length, and a rebuild or an
 * upgrade in place can keep both the length and the modification time (npm gives every file one date).
 */
function cacheFileFor(file: string, bytes: Buffer): string | undefined {
  const directory = cacheDirectory();
  if (directory === undefined) return undefined;
  return join(directory, `${sha256([file, process.version, process.arch].join("\0"))}-${sha256(bytes)}.bin`);
}

function cacheDirectory(): string | undefined {
  if (process.env["NODE_DISABLE_COMPILE_CACHE"]) return undefined;
  const chosen = process.env["NODE_COMPILE_CACHE"];
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  // Without uids (Windows) there is no owner to check, so only a folder of the user's own profile is used.
  const localAppData = process.env["LOCALAPPDATA"];
  const directory = chosen
    ? join(chosen, "jobtasks")
    : uid !== undefined
      ? join(tmpdir(), `jobtasks-compile-cache-${uid}`)
      : localAppData
        ? join(localAppData, "jobtasks", "compile-cache")
        : undefined;
  if (directory === undefined) return undefined;
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    const folder = lstatSync(directory);
    if (!folder.isDirectory()) return undefined;
    // Where there are uids: ours, and writable by us alone (a symbolic link is not a directory above).
    if (uid !== undefined && (folder.uid !== uid || (folder.mode & 0o022) !== 0)) return undefined;
    return directory;
  } catch {
    return undefined;
  }
}
