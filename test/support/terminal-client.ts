import { spawn } from "node:child_process";
import { cliBin, cliEnvironment, demoConfig, repositoryRoot } from "./cli-process.js";
import { ensureDebianProgram } from "./debian-package.js";

/**
 * `jobtasks call`, `watch` and `task` run as a person or a script runs them: a separate process, with
 * stdin not a terminal (a script), or inside a pseudo-terminal made by `script` (a person at a keyboard).
 */

export interface CliRun {
  code: number | null;
  /** The signal that ended the process, if one did. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunningCli {
  /** Resolves once the process has exited. */
  done: Promise<CliRun>;
  /** Everything printed so far (stdout). */
  stdout(): string;
  /** Resolves when stdout has a line that matches, with that line. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  signal(signal: NodeJS.Signals): void;
}

/** The command a stdio target spawns: the demo config served over stdio, by the built CLI. */
export function stdioServerCommand(): string {
  return [process.execPath, cliBin, "serve", "--config", demoConfig, "--stdio"].map(shellWord).join(" ");
}

export function startCli(args: string[], environment: Record<string, string>): RunningCli {
  const child = spawn(process.execPath, [cliBin, ...args], {
    cwd: repositoryRoot,
    env: cliEnvironment(environment),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const listeners = new Set<() => void>();
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    for (const listener of listeners) listener();
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const done = new Promise<CliRun>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return {
    done,
    stdout: () => stdout,
    waitForLine: (pattern, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const line = stdout.split("\n").find((entry) => pattern.test(entry));
          if (line === undefined) return;
          cleanup();
          resolve(line);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(`no line matching ${pattern} within ${timeoutMs} ms; stdout:\n${stdout}\nstderr:\n${stderr}`),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        void done.then(() => {
          if (listeners.has(check)) {
            cleanup();
            reject(new Error(`exited before a line matching ${pattern}; stdout:\n${stdout}\nstderr:\n${stderr}`));
          }
        });
        check();
      }),
    signal: (signal) => child.kill(signal),
  };
}

export function runCli(args: string[], environment: Record<string, string>): Promise<CliRun> {
  return startCli(args, environment).done;
}

/** JSON lines printed by --json, parsed. */
export function jsonLines(stdout: string): Array<Record<string, any>> {
  return stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, any>);
}

export interface PtyStep {
  /** Waits for this on the screen (ANSI codes removed), after what the previous step saw. */
  waitFor: RegExp;
  /**
   * Then types this ("\r" is Enter, "\x03" Ctrl-C, "\x1b[B" the down arrow), or runs this with the screen
   * so far (to act from elsewhere while the terminal waits) and types what it resolves with.
   */
  send: string | ((screen: string) => Promise<string>);
}

/**
 * Runs the CLI in a pseudo-terminal (`script -qfec`), so its stdin and stderr are terminals as they are
 * for a person, and types each step's keys once the screen shows what the step waits for.
 */
export async function runInPty(
  args: string[],
  environment: Record<string, string>,
  steps: PtyStep[],
  timeoutMs = 30_000,
): Promise<{ code: number | null; screen: string }> {
  // A pty made by `script` without a terminal around it is 0x0: give it a size, as a terminal window has.
  const commandLine = `stty cols 160 rows 48 && exec ${[process.execPath, cliBin, ...args].map(shellWord).join(" ")}`;
  const child = spawn("script", ["-qfec", commandLine, "/dev/null"], {
    cwd: repositoryRoot,
    env: cliEnvironment({ TERM: "xterm-256color", ...environment }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let screen = "";
  let seenUpTo = 0;
  let step = 0;
  const done = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  let acting = false;
  const advance = () => {
    while (step < steps.length && !acting) {
      const plain = stripAnsi(screen);
      const rest = plain.slice(seenUpTo);
      const match = steps[step]!.waitFor.exec(rest);
      if (!match) return;
      seenUpTo += match.index + match[0].length;
      const { send } = steps[step]!;
      step++;
      if (typeof send === "string") {
        child.stdin.write(send);
        continue;
      }
      acting = true;
      void send(plain).then(
        (keys) => {
          acting = false;
          child.stdin.write(keys);
          advance();
        },
        (error: unknown) => {
          failure = error;
          child.kill("SIGKILL");
        },
      );
    }
  };
  let failure: unknown;
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    screen += chunk;
    advance();
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const code = await done;
  clearTimeout(timer);
  if (failure !== undefined) throw failure;
  const plain = stripAnsi(screen);
  if (step < steps.length)
    throw new Error(`the pty run ended (${code}) before the screen showed ${steps[step]!.waitFor}:\n${plain}`);
  return { code, screen: plain };
}

export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Z0-9]|\x1b[=>78]|\r/g, "");
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export interface TmuxRun {
  code: number | null;
  /** The screen at the end, as a person would see it. */
  screen: string;
  /** The pane's title before the CLI started and at the end: an escape sequence (OSC 0/2) changes it. */
  titleBefore: string;
  title: string;
  /** What reached tmux's clipboard (its paste buffers): an OSC 52 write lands there. Empty when none did. */
  clipboard: string;
}

/**
 * Runs the CLI in a real terminal emulator (a detached tmux session on its own socket, with no user
 * configuration and `set-clipboard on`, so that an OSC 52 clipboard write is taken as a terminal would),
 * types each step's keys once the screen shows what it waits for, and returns the screen as a person would
 * see it at the end: what stayed drawn, not the bytes that were written (a stale line, a form left open).
 */
export async function runInTmux(
  args: string[],
  environment: Record<string, string>,
  steps: PtyStep[],
  timeoutMs = 30_000,
): Promise<TmuxRun> {
  // A fresh machine has no tmux: Debian's package is installed the first time.
  const tmuxProgram = ensureDebianProgram("tmux", ["/usr/bin/tmux", "/usr/local/bin/tmux"]);
  const socket = `jobtasks-test-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const tmux = (...words: string[]) =>
    new Promise<string>((resolve, reject) => {
      const child = spawn(tmuxProgram, ["-L", socket, ...words], { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
      child.once("error", reject);
      child.once("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`tmux ${words[0]} exited ${code}`))));
    });
  const exports = Object.entries(cliEnvironment({ TERM: "xterm-256color", ...environment }))
    .map(([name, value]) => `${name}=${shellWord(value)}`)
    .join(" ");
  const commandLine = `cd ${shellWord(repositoryRoot)} && env ${exports} ${[process.execPath, cliBin, ...args].map(shellWord).join(" ")}; echo "exited with $?"; sleep 60`;
  // One tmux command line, without the user's configuration: the option is set before the session (and the
  // CLI in it) starts.
  await tmux(
    "-f",
    "/dev/null",
    "start-server",
    ";",
    "set-option",
    "-g",
    "set-clipboard",
    "on",
    ";",
    "new-session",
    "-d",
    "-x",
    "160",
    "-y",
    "48",
    commandLine,
  );
  const titleBefore = await paneTitle(tmux);
  const screen = () => tmux("capture-pane", "-p", "-J", "-S", "-");
  const deadline = Date.now() + timeoutMs;
  try {
    const waitFor = async (pattern: RegExp): Promise<string> => {
      for (;;) {
        const shown = await screen();
        if (pattern.test(shown)) return shown;
        if (Date.now() > deadline) throw new Error(`the screen never showed ${pattern}:\n${shown}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    for (const step of steps) {
      const shown = await waitFor(step.waitFor);
      const keys = typeof step.send === "string" ? step.send : await step.send(shown);
      if (keys !== "") await tmux("send-keys", "-l", keys);
    }
    const final = await waitFor(/exited with \d+/);
    const code = Number(/exited with (\d+)/.exec(final)![1]);
    return {
      code,
      screen: final.replace(/\s*exited with \d+[\s\S]*$/, ""),
      titleBefore,
      title: await paneTitle(tmux),
      clipboard: await tmux("list-buffers"),
    };
  } finally {
    await tmux("kill-server").catch(() => undefined);
  }
}

function paneTitle(tmux: (...words: string[]) => Promise<string>): Promise<string> {
  return tmux("display-message", "-p", "#{pane_title}").then((title) => title.trimEnd());
}
