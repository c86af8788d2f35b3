const flag = "--experimental-async-context-frame";

/**
 * The start-up line for an operator running telemetry on Node 22 without async context frames, else
 * undefined. There the context that carries spans (and the adapter instance of an upstream request) runs on
 * async hooks once it is first entered, and every promise and tick a request makes pays for them from then
 * on: 0.1–0.2 of a cached poll's CPU in bench/observability.ts. Node 24 uses context frames by default;
 * Node 22 has them behind a flag, which only the operator can set (it is read as the process starts). Node
 * 20 has none, and gets no advice it cannot follow.
 */
export function asyncContextHint(
  nodeVersion: string,
  execArgv: readonly string[],
  nodeOptions: string | undefined,
): string | undefined {
  if (Number(nodeVersion.split(".")[0]) !== 22) return undefined;
  const given = [...execArgv, ...(nodeOptions ?? "").split(/\s+/)];
  if (given.includes(flag) || given.includes("--no-experimental-async-context-frame")) return undefined;
  return `telemetry's async context costs every request more on Node 22 than on Node 24; NODE_OPTIONS=${flag} (Node 24's default) takes most of it away`;
}
