import * as nodeModule from "node:module";

/**
 * When the compiled code is written if the process is still running: a host may end a stdio server with
 * SIGKILL, and Node otherwise writes its cache only at a normal exit.
 */
const flushDelayMs = 2_000;

interface CompileCacheApi {
  enableCompileCache?: () => unknown;
  flushCompileCache?: () => void;
}

/**
 * Keep V8's compiled code of the modules a start loads on disk between runs (Node ≥ 22.1), so a host that
 * spawns a stdio server per conversation pays for compiling once. The cache is Node's own: in the OS temp
 * dir unless NODE_COMPILE_CACHE says otherwise, off with NODE_DISABLE_COMPILE_CACHE=1. Where it cannot be
 * written (a read-only disk) Node reports a status instead of throwing; Node 20 has no such cache and
 * compiles every start. Nothing here may stop a start, hence the catch.
 */
export function enableCompileCache(api: CompileCacheApi = nodeModule as CompileCacheApi): void {
  if (typeof api.enableCompileCache !== "function") return;
  try {
    api.enableCompileCache();
  } catch {
    // A cache is a saving, never a requirement.
    return;
  }
  const flush = api.flushCompileCache;
  if (typeof flush !== "function") return;
  // After the first requests have compiled what answering them needs.
  setTimeout(() => {
    try {
      flush();
    } catch {
      // As above.
    }
  }, flushDelayMs).unref();
}
