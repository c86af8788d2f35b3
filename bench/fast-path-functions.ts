import { Session } from "node:inspector/promises";
import { startInProcessServer } from "../test/support/in-process-server.js";
import { createScriptedAdapter } from "../test/support/scripted-adapter.js";
import { rawCall } from "../test/support/raw-rpc.js";

/**
 * The functions that run for one repeat tasks/get over HTTP, as V8's precise coverage sees them, grouped by
 * file: the server's (packages/server/dist), the core's (packages/core/dist, adapter-utils among them) and
 * the SDK's. An in-process server without authentication, a scripted adapter, the snapshot cache off, 50
 * requests of warm-up; module top levels are not counted. Not a timing: the counts are exact.
 *
 * Run: node --import tsx bench/fast-path-functions.ts after a build; FAST_PATH=off for the SDK's path.
 */

const jobs = createScriptedAdapter({ toolName: "run_job" });
const server = await startInProcessServer({
  adapters: [{ name: "jobs", adapter: jobs.adapter }],
  ...(process.env["FAST_PATH"] === "off" ? { http: { fastTasksGet: false } as never } : {}),
});
const started = await rawCall(server.url, "tools/call", { name: "run_job", arguments: {} });
const taskId = started.body?.result?.["taskId"];
if (typeof taskId !== "string") throw new Error(`no task started: ${started.text}`);

const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: true });
for (let i = 0; i < 50; i++) await rawCall(server.url, "tasks/get", { taskId });
// Taking the coverage resets its counts: what the next take sees ran for the one request between.
await session.post("Profiler.takePreciseCoverage");
const answer = await rawCall(server.url, "tasks/get", { taskId });
const { result } = await session.post("Profiler.takePreciseCoverage");
if (answer.body?.result?.["taskId"] !== taskId) throw new Error(`tasks/get failed: ${answer.text}`);

const groups = new Map<string, Map<string, string[]>>();
for (const script of result) {
  const where =
    /packages\/(server|core)\/dist\/(.*)$/.exec(script.url) ??
    /node_modules\/(@modelcontextprotocol\/[^/]+)\/dist\/(.*)$/.exec(script.url);
  if (!where) continue;
  const [, owner = "", file = ""] = where;
  const names = script.functions
    .filter((fn) => fn.ranges[0]!.count > 0 && !(fn.ranges[0]!.startOffset === 0 && fn.functionName === ""))
    .map((fn) => fn.functionName || "(anonymous)");
  if (names.length === 0) continue;
  const files = groups.get(owner) ?? new Map<string, string[]>();
  files.set(file, names);
  groups.set(owner, files);
}
console.log(`| owner | functions run | files |\n| --- | --- | --- |`);
for (const [owner, files] of [...groups].sort()) {
  const count = [...files.values()].reduce((sum, names) => sum + names.length, 0);
  console.log(`| ${owner} | ${count} | ${files.size} |`);
}
for (const [owner, files] of [...groups].sort())
  for (const [file, names] of [...files].sort()) console.log(`${owner}/${file}: ${names.join(", ")}`);
await server.close();
