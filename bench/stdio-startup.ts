import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeMachine, formatNumber, heading, markdownTable, percentile } from "./support/measure.js";

/**
 * How long does an agent host wait for a stdio server it spawns? Hosts start one per conversation, so
 * this is paid every time. Each run spawns a process, writes `server/discover` on its stdin at once (as a
 * host does) and stops the clock at the first line on its stdout. The cases run in turns, one process at
 * a time, so a burst of load from a neighbour hits every case alike; bare `node` answering the same line
 * is the floor no Node server can beat.
 *
 * Node's compile cache (Node ≥ 22.1, which bin.js turns on; Node 20 has none) lives in a temp dir of this
 * run, filled by the warm-up round: each warm-up process is ended by closing its stdin, as a host ends a
 * conversation, and the cache is written as it exits. The measured processes are killed at their answer,
 * writing nothing. Extra cases show what each part saves: the same start without the bundle (the modules
 * tsc wrote) and the bundle with the cache turned off.
 *
 * Run: pnpm build && node --import tsx bench/stdio-startup.ts   (STARTUP_RUNS=N, default 15)
 * STARTUP_COMPARE_ROOT=<another checkout, built> adds its `serve --stdio` cases to the same run, for a
 * before/after ratio that load on the machine cannot skew.
 */

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = fileURLToPath(new URL("../packages/cli/dist/bin.js", import.meta.url));
/** The command line as tsc wrote it, module by module: what the bundle that bin.js imports saves. */
const unbundled = fileURLToPath(new URL("../packages/cli/dist/run-command-line.js", import.meta.url));
if (!existsSync(new URL("../packages/cli/dist/command-line.mjs", import.meta.url))) {
  console.error("packages/cli/dist holds no bundle of the command line: run pnpm build first");
  process.exit(1);
}
const runs = Number(process.env["STARTUP_RUNS"] ?? 15);
/** A process that has not answered by then counts as a failure; the benchmark still ends. */
const perRunTimeoutMs = 15_000;

const discover = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "server/discover",
  params: {
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "stdio-startup-bench", version: "1.0.0" },
      "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
    },
  },
})}\n`;

/** Reads one line and answers it: what a process costs before any server code runs. */
const bareNode = `process.stdin.once("data", () => process.stdout.write('{"jsonrpc":"2.0","id":1,"result":{}}\\n'));`;

interface Case {
  name: string;
  args: string[];
  /** What the first line must hold, so a start-up error is not timed as an answer. */
  expect: RegExp;
  /** Added to the environment of this case's processes. */
  env?: Record<string, string>;
}

const compareRoot = process.env["STARTUP_COMPARE_ROOT"];

/** The two configs, served by the `bin.js` of this checkout or of the one to compare with. */
function serveCases(binPath: string, label: string): Case[] {
  return [
    {
      name: `${label}serve --stdio, demo config (rest adapter)`,
      args: [binPath, "serve", "--config", "examples/demo/jobtasks.config.yaml", "--stdio"],
      expect: /"supportedVersions"/,
    },
    {
      name: `${label}serve --stdio, GitHub config (github-actions adapter)`,
      args: [binPath, "serve", "--config", "examples/github-ci/jobtasks.config.yaml", "--stdio"],
      expect: /"supportedVersions"/,
    },
  ];
}

const demoArgs = ["serve", "--config", "examples/demo/jobtasks.config.yaml", "--stdio"];
const cases: Case[] = [
  { name: "bare `node -e` (reads a line, writes a line)", args: ["-e", bareNode], expect: /"result"/ },
  ...serveCases(bin, "jobtasks "),
  {
    name: "without the bundle (dist/run-command-line.js, as tsc wrote it), demo config",
    args: [unbundled, ...demoArgs],
    expect: /"supportedVersions"/,
  },
  // Node's compile cache off (on Node 20 there is none to turn off).
  {
    name: "jobtasks serve --stdio, demo config, NODE_DISABLE_COMPILE_CACHE=1",
    args: [bin, ...demoArgs],
    expect: /"supportedVersions"/,
    env: { NODE_DISABLE_COMPILE_CACHE: "1" },
  },
  ...(compareRoot ? serveCases(join(compareRoot, "packages/cli/dist/bin.js"), `${basename(compareRoot)}: `) : []),
];

// A fixed secret: no secret file is read or written. The token is never used: nothing reaches GitHub
// before a tool is called. Logs stay at the default level, written to stderr as a host would see them.
const compileCache = mkdtempSync(join(tmpdir(), "jobtasks-stdio-startup-cache-"));
const environment = {
  ...process.env,
  JOBTASKS_SECRET: "stdio-startup-bench-secret-0123456789abcdef",
  GITHUB_TOKEN: "ghp_not-a-real-token",
  // Node's compile cache is in the OS temp dir by default: this run's own, so earlier runs do not count.
  TMPDIR: compileCache,
};

interface Sample {
  /** Wall clock from spawn to the first stdout line. */
  wallMs: number;
  /** The process's own CPU (user + system) by then: what load from neighbours does not inflate. */
  cpuMs: number;
}

/** User plus system CPU of a live process, from /proc (Linux; clock ticks of 10 ms). */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // After "pid (comm) ", utime and stime are fields 12 and 13 (0-based), in clock ticks of 1/100 s.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Starts `entry`, times its first answer, and ends it: killed at once, or (`gently`) by closing its stdin
 * and waiting for it to exit, as a host ends a conversation, so that Node writes its compile cache.
 */
function timeFirstAnswer(entry: Case, gently = false): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, entry.args, {
      cwd: root,
      env: { ...environment, ...entry.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => finish(new Error(`no answer within ${perRunTimeoutMs} ms`)), perRunTimeoutMs);
    let finished = false;
    const finish = (error: Error | undefined, sample?: Sample) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      if (error) reject(new Error(`${entry.name}: ${error.message}\n${stderr.slice(-2000)}`));
      if (error || !gently) {
        child.kill("SIGKILL");
        if (!error) resolve(sample!);
        return;
      }
      const killer = setTimeout(() => child.kill("SIGKILL"), perRunTimeoutMs);
      child.once("exit", () => {
        clearTimeout(killer);
        resolve(sample!);
      });
      child.stdin.end();
    };
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      const newline = stdout.indexOf("\n");
      if (newline === -1) return;
      const wallMs = performance.now() - started;
      const cpuMs = processCpuMs(child.pid!);
      const line = stdout.slice(0, newline);
      finish(entry.expect.test(line) ? undefined : new Error(`unexpected first line: ${line.slice(0, 300)}`), {
        wallMs,
        cpuMs,
      });
    });
    child.once("exit", (code) => finish(new Error(`exited with ${code} before answering`)));
    child.stdin.on("error", () => undefined);
    child.stdin.write(discover);
  });
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(", ");
console.log(describeMachine());
console.log(`load average at the start: ${load()}`);
heading(`stdio start to the first server/discover answer (\`bench/stdio-startup.ts\`, ${runs} runs each, in turns)`);

const samples = new Map<Case, Sample[]>(cases.map((entry) => [entry, []]));
// One warm-up round: the first spawn pays for a cold file cache and fills Node's compile cache, which a
// host pays once, not every time.
for (const entry of cases) await timeFirstAnswer(entry, true);
for (let round = 0; round < runs; round++) {
  for (const entry of cases) samples.get(entry)!.push(await timeFirstAnswer(entry));
}

const median = (entry: Case, key: keyof Sample) =>
  percentile(
    samples.get(entry)!.map((sample) => sample[key]),
    50,
  );
const bare = cases[0]!;
console.log(
  markdownTable(
    ["case", "median ms", "min ms", "max ms", "median minus bare node, ms", "median CPU ms", "CPU minus bare node, ms"],
    cases.map((entry) => {
      const wall = samples.get(entry)!.map((sample) => sample.wallMs);
      const difference = (key: keyof Sample) =>
        entry === bare ? "—" : formatNumber(median(entry, key) - median(bare, key));
      return [
        entry.name,
        formatNumber(median(entry, "wallMs")),
        formatNumber(Math.min(...wall)),
        formatNumber(Math.max(...wall)),
        difference("wallMs"),
        formatNumber(median(entry, "cpuMs")),
        difference("cpuMs"),
      ];
    }),
  ),
);
console.log(`load average at the end: ${load()}`);
rmSync(compileCache, { recursive: true, force: true });
