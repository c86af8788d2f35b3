import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
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
 * Run: pnpm exec tsc -b && node --import tsx bench/stdio-startup.ts   (STARTUP_RUNS=N, default 15)
 * STARTUP_COMPARE_ROOT=<another checkout, built> adds its `serve --stdio` cases to the same run, for a
 * before/after ratio that load on the machine cannot skew.
 */

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = fileURLToPath(new URL("../packages/cli/dist/bin.js", import.meta.url));
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

const cases: Case[] = [
  { name: "bare `node -e` (reads a line, writes a line)", args: ["-e", bareNode], expect: /"result"/ },
  ...serveCases(bin, "jobtasks "),
  ...(compareRoot ? serveCases(join(compareRoot, "packages/cli/dist/bin.js"), `${basename(compareRoot)}: `) : []),
];

// A fixed secret: no secret file is read or written. The token is never used: nothing reaches GitHub
// before a tool is called. Logs stay at the default level, written to stderr as a host would see them.
const environment = {
  ...process.env,
  JOBTASKS_SECRET: "stdio-startup-bench-secret-0123456789abcdef",
  GITHUB_TOKEN: "ghp_not-a-real-token",
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

function timeFirstAnswer(entry: Case): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, entry.args, { cwd: root, env: environment, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => finish(new Error(`no answer within ${perRunTimeoutMs} ms`)), perRunTimeoutMs);
    const finish = (error: Error | undefined, sample?: Sample) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      if (error) reject(new Error(`${entry.name}: ${error.message}\n${stderr.slice(-2000)}`));
      else resolve(sample!);
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
    child.on("exit", (code) => finish(new Error(`exited with ${code} before answering`)));
    child.stdin.on("error", () => undefined);
    child.stdin.write(discover);
  });
}

console.log(describeMachine());
heading(`stdio start to the first server/discover answer (\`bench/stdio-startup.ts\`, ${runs} runs each, in turns)`);

const samples = new Map<Case, Sample[]>(cases.map((entry) => [entry, []]));
// One warm-up round: the first spawn pays for a cold file cache, which a host does not pay every time.
for (const entry of cases) await timeFirstAnswer(entry);
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
