import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * jobtasks as a user gets it: the tarballs `pnpm pack:all` writes, installed with npm into a folder of
 * their own (third-party dependencies from the registry), and the `jobtasks` command run from there.
 */

export const repositoryRoot = fileURLToPath(new URL("../../", import.meta.url));

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run a command to its end, without a shell; fails the test when it outlives `timeoutMs`. */
export function runToEnd(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number; input?: string },
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const timeoutMs = options.timeoutMs ?? 30_000;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${command} ${args.join(" ")} did not end within ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    // A command that never reads its input (tar) may be gone before the end is written: EPIPE, harmless.
    child.stdin.on("error", () => undefined);
    child.stdin.end(options.input ?? "");
  });
}

/** `pnpm pack:all`'s script, into `destination`; answers the tarballs' paths. */
export async function packAll(destination: string): Promise<string[]> {
  const packed = await runToEnd(process.execPath, [join(repositoryRoot, "scripts/pack-all.mjs"), destination], {
    cwd: repositoryRoot,
    env: process.env,
    timeoutMs: 120_000,
  });
  if (packed.code !== 0) throw new Error(`pack-all failed:\n${packed.stdout}\n${packed.stderr}`);
  return [...packed.stdout.matchAll(/^ {2}(\S+\.tgz)$/gm)].map((match) => join(destination, match[1]!));
}

/** `npm install <tarballs>` in `directory` (created with an empty package.json when new). */
export async function npmInstall(directory: string, tarballs: string[]): Promise<void> {
  await mkdir(directory, { recursive: true });
  await writeFile(join(directory, "package.json"), `${JSON.stringify({ name: "jobtasks-user", private: true })}\n`, {
    flag: "wx",
  }).catch(() => undefined);
  const installed = await runToEnd("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...tarballs], {
    cwd: directory,
    env: process.env,
    timeoutMs: 240_000,
  });
  if (installed.code !== 0) throw new Error(`npm install failed:\n${installed.stdout}\n${installed.stderr}`);
}

/** The installed size of a folder in bytes, as `du -sk` counts it (disk blocks, as a user would measure). */
export async function installedBytes(directory: string): Promise<number> {
  const du = await runToEnd("du", ["-sk", directory], { cwd: directory, env: process.env });
  return Number(du.stdout.split(/\s/)[0]) * 1024;
}

/**
 * The environment an agent host gives a server it starts: PATH and HOME, nothing else. PATH finds the
 * installed `jobtasks` (as a global install would put it there) and the `node` running this test.
 */
export function hostEnvironment(
  installDirectory: string,
  home: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  const path = [join(installDirectory, "node_modules", ".bin"), dirname(process.execPath), "/usr/bin", "/bin"].join(
    delimiter,
  );
  return { PATH: path, HOME: home, ...extra };
}

export interface Started {
  child: ChildProcess;
  /** The first match of `ready` in stdout or stderr. */
  match: RegExpExecArray;
  stdout(): string;
  stderr(): string;
  stop(): Promise<void>;
}

/** Start a long-running command and wait until its output matches `ready`. */
export function startUntil(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; ready: RegExp; timeoutMs?: number },
): Promise<Started> {
  // A process group of its own: `npx jobtasks` runs jobtasks as a child of npm, and stopping npm alone
  // would leave that child serving.
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // The group is gone already.
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) signalGroup("SIGTERM");
    const timer = setTimeout(() => signalGroup("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(
        new Error(
          `${command} ${args.join(" ")} printed nothing matching ${options.ready} within ${options.timeoutMs ?? 20_000} ms:\n${stdout}\n${stderr}`,
        ),
      );
    }, options.timeoutMs ?? 20_000);
    const check = () => {
      const match = options.ready.exec(stdout) ?? options.ready.exec(stderr);
      if (!match) return;
      clearTimeout(timer);
      resolve({ child, match, stdout: () => stdout, stderr: () => stderr, stop });
    };
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      check();
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      check();
    });
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(`${command} ${args.join(" ")} exited (${code ?? signal}) before it was ready:\n${stdout}\n${stderr}`),
      );
    });
  });
}
