import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
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
 * The cache is only ever a saving: a file that cannot be read, written or trusted means compiling anew,
 * never a failed start. It follows Node's own switches: NODE_DISABLE_COMPILE_CACHE=1 turns it off, and
 * NODE_COMPILE_CACHE=<dir> puts it in <dir>/jobtasks; else it is a folder of this user's in the OS temp dir,
 * used only while no one else can write to it (compiled code read from a folder another user controls
 * would run as ours).
 */
export type CacheOutcome = "used" | "written later" | "off";

export interface CachedScriptResult {
  /** What the file set `module.exports` to. */
  exports: unknown;
  /** Whether compiled code was read from the cache, will be written to it, or no cache is in use. */
  cache: CacheOutcome;
}

/** How long after a start the compiled code is written, so that it holds what answering requests compiled. */
const writeDelayMs = 2_000;

export function runCachedCommonJs(file: string, requireFromFile: (specifier: string) => unknown): CachedScriptResult {
  const source = readFileSync(file, "utf8");
  const cacheFile = cacheFileFor(file);
  const cachedData = cacheFile === undefined ? undefined : readIfPresent(cacheFile);
  // The function CommonJS runs a file as (Module.wrap's), so the file sees exports, require, module,
  // __filename and __dirname as it would from require().
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;
  const script = new Script(wrapped, { filename: file, ...(cachedData ? { cachedData } : {}) });
  const cache: CacheOutcome =
    cacheFile === undefined ? "off" : cachedData !== undefined && !script.cachedDataRejected ? "used" : "written later";
  // Before the file runs: a command may end the process while it does (`jobtasks --version` does).
  if (cache === "written later") writeLater(script, cacheFile!);
  const module = { exports: {} as unknown };
  const run = script.runInThisContext() as (...parameters: unknown[]) => void;
  run.call(module.exports, module.exports, requireFromFile, module, file, dirname(file));
  return { exports: module.exports, cache };
}

/** Written once, at the first of a timer and the process's exit: a short command exits before the timer. */
function writeLater(script: Script, cacheFile: string): void {
  let written = false;
  const write = () => {
    if (written) return;
    written = true;
    process.off("exit", write);
    clearTimeout(timer);
    writeCache(cacheFile, script);
  };
  const timer = setTimeout(write, writeDelayMs);
  timer.unref();
  process.once("exit", write);
}

function writeCache(cacheFile: string, script: Script): void {
  try {
    const data = script.createCachedData();
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    writeFileSync(temporary, data, { mode: 0o600 });
    renameSync(temporary, cacheFile);
    removeOlderCaches(cacheFile);
  } catch {
    // A cache is a saving, never a requirement.
  }
}

/** The same file's caches from before it was rebuilt: one per build would pile up. */
function removeOlderCaches(cacheFile: string): void {
  const directory = dirname(cacheFile);
  const name = basename(cacheFile);
  const fileKey = name.slice(0, name.indexOf("-") + 1);
  for (const entry of readdirSync(directory)) {
    if (entry !== name && entry.startsWith(fileKey) && entry.endsWith(".bin"))
      rmSync(join(directory, entry), { force: true });
  }
}

function readIfPresent(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * Where the compiled code of `file` is kept, or undefined when there is no cache to use. The name holds the
 * file's path and, after a dash, what makes its compiled code valid: its size and modification time (a
 * rebuilt or patched file is compiled anew; V8 itself only checks the length of the source) and the Node
 * build. V8 rejects code compiled under other flags itself, and it is then written anew.
 */
function cacheFileFor(file: string): string | undefined {
  const directory = cacheDirectory();
  if (directory === undefined) return undefined;
  try {
    const { size, mtimeMs } = statSync(file);
    const validity = sha256([size, mtimeMs, process.version, process.arch].join("\0"));
    return join(directory, `${sha256(file).slice(0, 24)}-${validity.slice(0, 24)}.bin`);
  } catch {
    return undefined;
  }
}

function cacheDirectory(): string | undefined {
  if (process.env["NODE_DISABLE_COMPILE_CACHE"]) return undefined;
  const chosen = process.env["NODE_COMPILE_CACHE"];
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  const directory = chosen ? join(chosen, "jobtasks") : join(tmpdir(), `jobtasks-compile-cache-${uid ?? "user"}`);
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    const folder = lstatSync(directory);
    if (!folder.isDirectory()) return undefined;
    // Where there are uids (not Windows, whose temp dir is the user's own): ours, and writable by us alone.
    if (uid !== undefined && (folder.uid !== uid || (folder.mode & 0o022) !== 0)) return undefined;
    return directory;
  } catch {
    return undefined;
  }
}
