import * as nodeModule from "node:module";

/**
 * Keep V8's compiled code of every module on disk between runs (Node ≥ 22.1), so a host that spawns a
 * stdio server per conversation pays for compiling once. The cache is Node's own (NODE_COMPILE_CACHE, else
 * a folder in the OS temp dir) and only ever an optimisation: where it cannot be written (read-only disk,
 * NODE_DISABLE_COMPILE_CACHE=1) Node reports a status instead of throwing, and on older Node this does
 * nothing. Nothing here may stop a start, hence the catch.
 */
export function enableCompileCache(): void {
  const enable = (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache;
  if (typeof enable !== "function") return;
  try {
    enable();
  } catch {
    // A cache is a saving, never a requirement.
  }
}
