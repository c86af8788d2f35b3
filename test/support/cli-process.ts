import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";
import { unsupportedNodeNotice } from "../../packages/cli/src/unsupported-node-notice.js";

/**
 * The `jobtasks` command as users run it: `node packages/cli/dist/bin.js serve --config ...`, a separate
 * process, configured through the environment.
 */

export const repositoryRoot = fileURLToPath(new URL("../../", import.meta.url));
export const cliBin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
export const demoConfig = fileURLToPath(new URL("../../examples/demo/jobtasks.config.yaml", import.meta.url));

/** A minimal environment for the child: PATH and friends, plus what the test sets. Never the test's own secrets. */
/**
 * What a stdio server may write on stderr at start-up when no log level is asked for: nothing on Node 22
 * and later, and the one line saying the Node is out of support on Node 20.
 */
export const quietStartupStderr = unsupportedNodeNotice() ?? "";

export function cliEnvironment(extra: Record<string, string>): Record<string, string> {
  return { ...getDefaultEnvironment(), JOBTASKS_LOG_LEVEL: "info", ...extra };
}

export interface CliHttpServer {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stderr so far (JSON log lines). */
  stderr(): string;
  /** Ends the process with SIGKILL and waits for it to be gone. */
  kill(): Promise<void>;
  /** Ends the process gently (SIGTERM), falling back to SIGKILL. */
  close(): Promise<void>;
}

export interface StartCliHttpServerOptions {
  env: Record<string, string>;
  /** The Node binary to run it with. Default: this process's. */
  node?: string;
  /** The config file to serve. Default: the demo's. */
  config?: string;
  /** Default 0: the OS picks a free port. */
  port?: number;
  /** How long to wait for the "listening" line. Default 30 s: a loaded machine starts node slowly. */
  timeoutMs?: number;
  /**
   * How long to keep retrying a fixed `port` that is in use. Default 6 s. Right after a server on it is
   * killed, another process's outgoing connection may briefly hold it as its ephemeral port; an idle
   * keep-alive connection is closed within about 5 s.
   */
  busyPortRetryMs?: number;
}

/** `jobtasks serve` refused to start because its fixed port was taken. */
export class BusyPortError extends Error {}

/** Start `jobtasks serve` over HTTP and wait for its "listening" log line, which carries the URL. */
export async function startCliHttpServer(options: StartCliHttpServerOptions): Promise<CliHttpServer> {
  const retryUntil = Date.now() + (options.port ? (options.busyPortRetryMs ?? 6_000) : 0);
  for (;;) {
    try {
      return await startCliHttpServerOnce(options);
    } catch (error) {
      if (!(error instanceof BusyPortError) || Date.now() >= retryUntil) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

async function startCliHttpServerOnce(options: StartCliHttpServerOptions): Promise<CliHttpServer> {
  const args = [
    cliBin,
    "serve",
    "--config",
    options.config ?? demoConfig,
    "--host",
    "127.0.0.1",
    "--port",
    String(options.port ?? 0),
  ];
  const child = spawn(options.node ?? process.execPath, args, {
    cwd: repositoryRoot,
    env: options.env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A server that never said it listens is stopped here: nobody else holds it to close it.
      child.kill("SIGKILL");
      reject(new Error(`jobtasks serve did not log "listening" within ${options.timeoutMs ?? 30_000} ms:\n${stderr}`));
    }, options.timeoutMs ?? 30_000);
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => {
      stderr += chunk;
      for (const line of stderr.split("\n")) {
        const entry = parseJsonLine(line);
        if (entry?.["msg"] === "listening" && typeof entry["url"] === "string") {
          clearTimeout(timer);
          resolve(entry["url"]);
        }
      }
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      const message = `jobtasks serve exited (${code ?? signal}) before listening:\n${stderr}`;
      reject(/is already in use/.test(stderr) ? new BusyPortError(message) : new Error(message));
    });
  });
  const stop = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const timeout = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 3_000));
    if ((await Promise.race([exited.then(() => "exited" as const), timeout])) === "timeout") {
      child.kill("SIGKILL");
      await exited;
    }
  };
  return {
    url,
    child,
    stderr: () => stderr,
    kill: () => stop("SIGKILL"),
    close: () => stop("SIGTERM"),
  };
}

function parseJsonLine(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
