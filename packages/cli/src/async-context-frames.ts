const flag = "--experimental-async-context-frame";
const offFlag = "--no-experimental-async-context-frame";

/**
 * Set in the environment of a `jobtasks serve` restarted with async context frames: it says so in its
 * log, and never restarts again.
 */
export const restartedVariable = "JOBTASKS_ASYNC_CONTEXT_FRAMES_RESTART";

/**
 * On Node 22 the async context that carries spans (and the adapter instance of an upstream request) runs
 * on async hooks from the first context entered, and every promise and tick of every request pays for them
 * from then on: 0.1–0.2 of a cached poll's CPU with telemetry on (bench/observability.ts). Async context
 * frames take that away; they are Node 24's default and behind a flag on Node 22, read only as a process
 * starts. So `jobtasks serve` with telemetry on, on Node 22 without the flag either way, replaces its own
 * process with the same command plus the flag (process.execve: the same process id, the same standard
 * streams, nothing read from them yet). Node 20 has no frames; Node 24 has them already.
 */
export type AsyncContextFrames =
  /** Nothing to do: not Node 22, or the operator gave the flag (or its negation). */
  | { kind: "settled" }
  | { kind: "restart" }
  /** Node 22 that cannot replace its process (Windows, or an earlier attempt): the line to log. */
  | { kind: "advise"; message: string };

export interface AsyncContextFramesFacts {
  nodeVersion: string;
  execArgv: readonly string[];
  nodeOptions: string | undefined;
  /** Whether process.execve exists here (Node 22.15 and later, not on Windows). */
  canReplaceProcess: boolean;
  /** Whether this process is already the restarted one (restartedVariable set). */
  restarted: boolean;
}

export function asyncContextFrames(facts: AsyncContextFramesFacts): AsyncContextFrames {
  if (Number(facts.nodeVersion.split(".")[0]) !== 22) return { kind: "settled" };
  const given = [...facts.execArgv, ...(facts.nodeOptions ?? "").split(/\s+/)];
  if (given.includes(flag) || given.includes(offFlag)) return { kind: "settled" };
  if (facts.canReplaceProcess && !facts.restarted) return { kind: "restart" };
  return {
    kind: "advise",
    message: `telemetry's async context costs every request more on Node 22 than on Node 24; NODE_OPTIONS=${flag} (Node 24's default) takes most of it away`,
  };
}

/** What the restarted process logs once, and how to keep the flag off. */
export const restartedMessage = `restarted with ${flag}: on Node 22 telemetry's async context then costs a request what it does on Node 24 (NODE_OPTIONS=${offFlag} keeps it off)`;

type Execve = (file: string, args: string[], environment: NodeJS.ProcessEnv) => never;

/**
 * Restart this process in place with async context frames when asyncContextFrames says so (then this does
 * not return); else return the line to log, if any. Only the command line calls this: a program that
 * embeds serve() keeps its process as it started it. A replacement that fails leaves the process as it was.
 */
export function restartWithAsyncContextFramesIfUseful(): string | undefined {
  const execve = (process as { execve?: Execve }).execve;
  const decision = asyncContextFrames({
    nodeVersion: process.versions.node,
    execArgv: process.execArgv,
    nodeOptions: process.env["NODE_OPTIONS"],
    canReplaceProcess: typeof execve === "function" && process.platform !== "win32",
    restarted: process.env[restartedVariable] === "1",
  });
  if (decision.kind === "settled") return undefined;
  if (decision.kind === "advise") return decision.message;
  try {
    execve!.call(process, process.execPath, [process.execPath, flag, ...process.execArgv, ...process.argv.slice(1)], {
      ...process.env,
      [restartedVariable]: "1",
    });
  } catch {
    // Not replaced (the binary could not be run again): serve as started, and say what would help.
  }
  return `could not restart with ${flag}; NODE_OPTIONS=${flag} makes telemetry's async context cost a request on Node 22 what it does on Node 24`;
}
