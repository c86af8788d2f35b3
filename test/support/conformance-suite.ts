import { execFile } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { repositoryRoot } from "./cli-process.js";

/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`), pinned, and the Node ≥ 22 its
 * command needs. Both are installed on first use into the gitignored `.jobtasks-test/`, so `pnpm test`
 * needs nothing set up by hand; CI may hand in its own Node 22 as JOBTASKS_NODE22.
 */

export const conformanceSuiteVersion = "0.2.0-alpha.12";
export const node22Version = "22.23.5";
export const conformanceCacheDirectory = join(repositoryRoot, ".jobtasks-test", "conformance-suite");

const run = promisify(execFile);
/** npm installs take long on a loaded machine; past this, something is wrong with the network. */
const installTimeoutMs = 240_000;

/** A Node binary of major version 22 or newer, as an absolute path. */
export async function resolveNode22(environment: NodeJS.ProcessEnv = process.env): Promise<string> {
  const given = environment["JOBTASKS_NODE22"];
  if (given) return checkNode22(nodeBinaryIn(given), "JOBTASKS_NODE22");
  if (Number(process.versions.node.split(".")[0]) >= 22) return process.execPath;
  return installNode22();
}

/**
 * A Node 22 binary, not a newer one (what differs on Node 22 is tested with it): this process's own when
 * it is Node 22, JOBTASKS_NODE22 when that is, else the pinned one installed in the test cache.
 */
export async function resolveExactlyNode22(environment: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (Number(process.versions.node.split(".")[0]) === 22) return process.execPath;
  const given = environment["JOBTASKS_NODE22"];
  if (given) {
    const binary = nodeBinaryIn(given);
    const { stdout } = await run(binary, ["--version"], { timeout: 30_000 });
    if (stdout.trim().startsWith("v22.")) return binary;
  }
  return installNode22();
}

async function installNode22(): Promise<string> {
  const platform = { linux: "linux", darwin: "darwin" }[process.platform as string];
  if (!platform)
    throw new Error(
      `cannot install Node ${node22Version} on ${process.platform}; set JOBTASKS_NODE22 to a Node 22 binary`,
    );
  const packageName = `node-${platform}-${process.arch}`;
  const prefix = join(conformanceCacheDirectory, `node-${node22Version}`);
  const binary = join(prefix, "node_modules", packageName, "bin", "node");
  if (!existsSync(binary)) await npmInstall(prefix, `${packageName}@${node22Version}`);
  return checkNode22(binary, `the installed ${packageName}@${node22Version}`);
}

/** The suite's command (its dist/index.js), installed at the pinned version when missing. */
export async function installConformanceSuite(): Promise<string> {
  const prefix = join(conformanceCacheDirectory, `suite-${conformanceSuiteVersion}`);
  const packageDirectory = join(prefix, "node_modules", "@modelcontextprotocol", "conformance");
  if (installedVersion(packageDirectory) !== conformanceSuiteVersion) {
    await npmInstall(prefix, `@modelcontextprotocol/conformance@${conformanceSuiteVersion}`);
  }
  const version = installedVersion(packageDirectory);
  if (version !== conformanceSuiteVersion)
    throw new Error(`installing the conformance suite left version ${version ?? "none"} in ${prefix}`);
  return join(packageDirectory, "dist", "index.js");
}

export interface SuiteRun {
  exitCode: number;
  output: string;
  /** The suite's own last summary line ("Total: 86 passed, 0 failed" or "Passed: 9/9, 0 failed, ..."). */
  summary: string;
}

/** Run the suite's command with Node 22. A non-zero exit is a result, not an exception. */
export async function runConformanceSuite(
  node22: string,
  suiteCli: string,
  args: string[],
  timeoutMs: number,
): Promise<SuiteRun> {
  let exitCode = 0;
  let output: string;
  try {
    const { stdout, stderr } = await run(node22, [suiteCli, ...args], {
      cwd: conformanceCacheDirectory,
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
      env: suiteEnvironment(),
    });
    output = stdout + stderr;
  } catch (error) {
    const failed = error as { code?: unknown; signal?: unknown; stdout?: string; stderr?: string };
    if (typeof failed.code !== "number")
      throw new Error(
        `the conformance suite did not run to its end (${String(failed.signal ?? failed.code)}):\n${failed.stdout ?? ""}${failed.stderr ?? ""}`,
      );
    exitCode = failed.code;
    output = (failed.stdout ?? "") + (failed.stderr ?? "");
  }
  // The suite colours its output whatever NO_COLOR says.
  const plain = output.replace(/\u001b\[[0-9;]*m/g, "");
  const summary =
    plain
      .split("\n")
      .filter((line) => /^(Total|Passed): /.test(line.trim()))
      .at(-1)
      ?.trim() ?? "(no summary line)";
  return { exitCode, output: plain, summary };
}

/** The suite needs no credentials: PATH and HOME only, without colours. */
function suiteEnvironment(): NodeJS.ProcessEnv {
  const { PATH, HOME, TMPDIR } = process.env;
  return {
    ...(PATH ? { PATH } : {}),
    ...(HOME ? { HOME } : {}),
    ...(TMPDIR ? { TMPDIR } : {}),
    NO_COLOR: "1",
    FORCE_COLOR: "0",
  };
}

function nodeBinaryIn(path: string): string {
  if (!existsSync(path)) throw new Error(`JOBTASKS_NODE22=${path}: no such file or directory`);
  if (!statSync(path).isDirectory()) return path;
  const candidate = [join(path, "bin", "node"), join(path, "node")].find((file) => existsSync(file));
  if (!candidate) throw new Error(`JOBTASKS_NODE22=${path}: a directory without bin/node or node`);
  return candidate;
}

async function checkNode22(binary: string, source: string): Promise<string> {
  const { stdout } = await run(binary, ["--version"], { timeout: 30_000 });
  const major = Number(/^v(\d+)\./.exec(stdout.trim())?.[1]);
  if (!(major >= 22))
    throw new Error(`${source} is Node ${stdout.trim()}; the conformance suite needs Node 22 or newer`);
  return binary;
}

async function npmInstall(prefix: string, spec: string): Promise<void> {
  await run(
    "npm",
    ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", "--loglevel", "error", spec],
    {
      cwd: repositoryRoot,
      timeout: installTimeoutMs,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
}

function installedVersion(packageDirectory: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(packageDirectory, "package.json"), "utf8")) as { version?: string }).version;
  } catch {
    return undefined;
  }
}
