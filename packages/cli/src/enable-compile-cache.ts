import * as nodeModule from "node:module";
import { enableScriptCache } from "@jobtasks/core/cached-script";

/**
 * Keep V8's compiled code on disk between runs, so a host that spawns a stdio server per conversation pays
 * for compiling once: of the command line's bundle and the core's zod, on every Node, through the core's
 * runCachedCommonJs (enableScriptCache: a library importing the core writes nothing unless asked), and of
 * every other module through Node's own cache (Node ≥ 22.1). The cache is Node's own (NODE_COMPILE_CACHE, else
 * a folder in the OS temp dir) and only ever an optimisation: where it cannot be written (read-only disk,
 * NODE_DISABLE_COMPILE_CACHE=1) Node reports a status instead of throwing, and on older Node this does
 * nothing. Nothing here may stop a start, hence the catch.
 */
export function enableCompileCache(): void {
  enableScriptCache();
  const enable = (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache;
  if (typeof enable !== "function") return;
  try {
    enable();
  } catch {
    // A cache is a saving, never a requirement.
  }
}
