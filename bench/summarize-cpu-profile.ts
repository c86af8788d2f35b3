import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { formatNumber, markdownTable } from "./support/measure.js";

/**
 * Where a server process spent its CPU: reads the .cpuprofile files `node --cpu-prof` wrote and prints the
 * functions with the most self time, and the shares of a few groups (zod, the MCP SDK, Node's HTTP, GC,
 * jobtasks itself), as shares of the busy time from the first request served on. Used with the BENCH_SERVER_NODE_FLAGS of bench/peer-comparison.ts.
 *
 * Run: node --import tsx bench/summarize-cpu-profile.ts /tmp/profiles
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const groups: Array<[string, (url: string, name: string) => boolean]> = [
  ["garbage collection", (_url, name) => name === "(garbage collector)"],
  ["zod", (url) => url.includes("/zod/")],
  ["MCP SDK (2.x server, 1.x sdk)", (url) => url.includes("@modelcontextprotocol")],
  ["undici (Web Request/Response)", (url) => url.includes("undici") || url.includes("internal/deps/undici")],
  [
    "Node HTTP and streams",
    (url) =>
      /node:(_http|http|net|stream|internal\/(http|streams|stream_base))/.test(url) ||
      url.startsWith("node:internal/streams"),
  ],
  ["jobtasks (packages/*)", (url) => url.includes("/packages/") && !url.includes("node_modules")],
  ["Node internals (timers, events, ticks)", (url) => url.startsWith("node:")],
  ["native (program)", (_url, name) => name === "(program)"],
];

function summarize(file: string): void {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  // Start-up (loading modules) is not what is measured: count from the first sample inside the HTTP
  // server's request handling on. Idle time is left out, so shares are of the time the process was busy.
  const serving = (id: number): boolean => {
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const { url, functionName } = byId.get(at)!.callFrame;
      if (functionName === "route" || url.includes("sdk1-tasks-peer")) return true;
    }
    return false;
  };
  const firstServing = profile.samples.findIndex(serving);
  const selfMicros = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    if (index < firstServing || byId.get(id)!.callFrame.functionName === "(idle)") return;
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  const total = [...selfMicros.values()].reduce((sum, value) => sum + value, 0);
  const byFunction = new Map<string, number>();
  const byGroup = new Map<string, number>();
  for (const [id, micros] of selfMicros) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const where = url
      .replace(/^.*node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, "")
      .replace(/^file:\/\/.*\/(packages|bench)\//, "$1/");
    const key = `${functionName || "(anonymous)"} ${where}:${lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
    const group = groups.find(([, matches]) => matches(url, functionName))?.[0] ?? "other";
    byGroup.set(group, (byGroup.get(group) ?? 0) + micros);
  }
  const share = (micros: number) => `${formatNumber((micros / total) * 100, 1)} %`;
  console.log(`\n### ${file}\n`);
  console.log(
    markdownTable(
      ["group", "self time"],
      [...byGroup].sort((a, b) => b[1] - a[1]).map(([group, micros]) => [group, share(micros)]),
    ),
  );
  console.log(
    "\n" +
      markdownTable(
        ["function (top 15 by self time)", "self time"],
        [...byFunction]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 15)
          .map(([name, micros]) => [name, share(micros)]),
      ),
  );
}

const directory = process.argv[2];
if (!directory) throw new Error("usage: summarize-cpu-profile.ts <directory of .cpuprofile files>");
for (const file of readdirSync(directory).filter((name) => name.endsWith(".cpuprofile")))
  summarize(join(directory, file));
