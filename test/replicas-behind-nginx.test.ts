import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, request as forward, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningDemoApi } from "@jobtasks/demo";
import { cliEnvironment, repositoryRoot, startCliHttpServer, type CliHttpServer } from "./support/cli-process.js";
import { startDemoApiForTests } from "./support/demo-stack.js";
import { pollUntil, rawCall, rawResult } from "./support/raw-rpc.js";
import { ensureDebianProgram } from "./support/debian-package.js";

/**
 * The README's "Replicas" recipe, run as written: nginx (Debian's package) with its upstream block, a
 * consistent hash on Mcp-Name, in front of two `jobtasks serve` replicas that share one secret. The job API
 * sits behind a counting proxy, so the test sees every status read the replicas make. Tasks are created
 * on a third replica outside nginx, so the two behind it start with cold caches; the snapshot cache is
 * 60 s, longer than the test, so each replica reads a job at most once and the counts are exact: one
 * replica 1 read per job, the hashed route 1, round robin 2.
 */

const secret = "replicas-behind-nginx-secret-0123456789abcdef";
// Odd: round robin over two replicas, polling the tasks in turn, then alternates every task's polls (with
// an even count each task would land on the same replica every round, by accident).
const jobs = 11;
const pollsPerJob = 10;

/** The nginx binary where Debian puts it, installed when missing. */
function ensureNginx(): string {
  return ensureDebianProgram("nginx", ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"]);
}

/** The nginx block of README.md's "Replicas" section, on the given ports; without the hash, plain round robin. */
function readmeNginxBlock(
  ports: { listen: number; replicas: [number, number] },
  routing: "hash" | "round robin",
): string {
  const readme = readFileSync(join(repositoryRoot, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("\n## Replicas\n"));
  const block = /```nginx\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README.md has no nginx block under "## Replicas"');
  const replace = (text: string, from: string | RegExp, to: string) => {
    const replaced = text.replace(from, to);
    if (replaced === text) throw new Error(`the README's nginx block no longer has ${String(from)}`);
    return replaced;
  };
  let config = replace(block, "server 127.0.0.1:3001;", `server 127.0.0.1:${ports.replicas[0]};`);
  config = replace(config, "server 127.0.0.1:3002;", `server 127.0.0.1:${ports.replicas[1]};`);
  config = replace(config, "listen 127.0.0.1:8080;", `listen 127.0.0.1:${ports.listen};`);
  if (routing === "round robin") {
    config = replace(config, /^\s*hash \$http_mcp_name consistent;\n/m, "");
    config = replace(config, "upstream jobtasks {", "upstream jobtasks_round_robin {");
    config = replace(config, "proxy_pass http://jobtasks;", "proxy_pass http://jobtasks_round_robin;");
  }
  return config;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A proxy in front of the demo job API that counts status reads (GET /jobs/<id>) per job. */
async function startCountingProxy(
  target: string,
): Promise<{ url: string; reads: Map<string, number>; server: Server }> {
  const reads = new Map<string, number>();
  const server = createServer((incoming, outgoing) => {
    const job = incoming.method === "GET" ? /^\/jobs\/([A-Za-z0-9_-]+)$/.exec(incoming.url ?? "")?.[1] : undefined;
    if (job) reads.set(job, (reads.get(job) ?? 0) + 1);
    const upstream = forward(
      new URL(incoming.url ?? "/", target),
      { method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on("error", () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, reads, server };
}

let workspace: string;
let api: RunningDemoApi;
let proxy: Awaited<ReturnType<typeof startCountingProxy>>;
let replicas: CliHttpServer[] = [];
let creator: CliHttpServer;
let nginx: ChildProcess | undefined;
let nginxOutput = "";
let hashedUrl: string;
let roundRobinUrl: string;

beforeAll(async () => {
  const nginxBinary = ensureNginx();
  workspace = await mkdtemp(join(tmpdir(), "jobtasks-replicas-"));
  api = await startDemoApiForTests();
  proxy = await startCountingProxy(api.url);
  const config = join(workspace, "jobtasks.config.yaml");
  await writeFile(
    config,
    [
      "server:",
      "  name: replicas-test",
      "  snapshotCacheMs: 60000",
      "adapters:",
      "  - name: demo",
      "    kind: rest",
      "    options:",
      "      preset: demo-api",
      "      baseUrl: ${DEMO_API_URL}",
      "",
    ].join("\n"),
  );
  const env = cliEnvironment({ JOBTASKS_SECRET: secret, DEMO_API_URL: proxy.url });
  const started = await Promise.all([0, 1, 2].map(() => startCliHttpServer({ env, config, timeoutMs: 30_000 })));
  creator = started[0]!;
  replicas = started.slice(1);
  const replicaPorts = replicas.map((replica) => Number(new URL(replica.url).port)) as [number, number];
  const [hashedPort, roundRobinPort] = [await freePort(), await freePort()];
  const directory = (name: string) => join(workspace, name);
  await writeFile(
    directory("nginx.conf"),
    [
      "daemon off;",
      // One process, in the foreground, as the user running the test: the test's child, stopped with it.
      "master_process off;",
      "worker_processes 1;",
      `pid ${directory("nginx.pid")};`,
      `error_log ${directory("error.log")} warn;`,
      "events { worker_connections 256; }",
      "http {",
      "  access_log off;",
      ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map(
        (kind) => `  ${kind}_temp_path ${directory(`${kind}-temp`)};`,
      ),
      // Not part of the recipe: which replica answered, so the test can see the routing.
      "  add_header X-Replica $upstream_addr always;",
      readmeNginxBlock({ listen: hashedPort, replicas: replicaPorts }, "hash"),
      readmeNginxBlock({ listen: roundRobinPort, replicas: replicaPorts }, "round robin"),
      "}",
      "",
    ].join("\n"),
  );
  nginx = spawn(nginxBinary, ["-p", workspace, "-e", directory("error.log"), "-c", directory("nginx.conf")], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  nginx.stdout!.on("data", (chunk: Buffer) => (nginxOutput += chunk.toString("utf8")));
  nginx.stderr!.on("data", (chunk: Buffer) => (nginxOutput += chunk.toString("utf8")));
  hashedUrl = `http://127.0.0.1:${hashedPort}/mcp`;
  roundRobinUrl = `http://127.0.0.1:${roundRobinPort}/mcp`;
  const running = nginx;
  for (const url of [hashedUrl, roundRobinUrl]) {
    await pollUntil(
      async () => {
        if (running.exitCode !== null)
          throw new Error(
            `nginx exited (${running.exitCode}):\n${nginxOutput}\n${readFileSync(directory("error.log"), "utf8")}`,
          );
        return rawCall(url, "server/discover", {}).then(
          (response) => response.httpStatus,
          () => 0,
        );
      },
      (status) => status === 200,
      20_000,
      50,
    );
  }
}, 300_000);

afterAll(async () => {
  if (nginx && nginx.exitCode === null) {
    const exited = new Promise((resolve) => nginx!.once("exit", resolve));
    nginx.kill("SIGTERM");
    await exited;
  }
  await Promise.all([creator, ...replicas].filter(Boolean).map((server) => server.close()));
  if (proxy) await new Promise((resolve) => proxy.server.close(resolve));
  if (api) await api.close();
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

/** Tasks created on the creator replica, outside nginx: their jobs are in no cache behind it. */
async function createTasks(count: number): Promise<Array<{ taskId: string; job: string }>> {
  const created: Array<{ taskId: string; job: string }> = [];
  for (let index = 0; index < count; index++) {
    const before = new Set(proxy.reads.keys());
    const result = await rawResult(creator.url, "tools/call", {
      name: "demo_pipeline",
      arguments: { steps: 1, stepMs: 600_000 },
    });
    expect(result["resultType"]).toBe("task");
    // The creator reads the new job once (or not at all, when the submit's answer was its first snapshot).
    await rawResult(creator.url, "tasks/get", { taskId: result["taskId"] });
    const job = [...proxy.reads.keys()].find((key) => !before.has(key));
    created.push({ taskId: result["taskId"] as string, job: job ?? "" });
  }
  return created;
}

/** Polls every task `pollsPerJob` times through `url`; gives the status reads per poll and who answered each task. */
async function pollThrough(url: string, tasks: Array<{ taskId: string; job: string }>) {
  const readsBefore = [...proxy.reads.values()].reduce((sum, value) => sum + value, 0);
  const answeredBy = new Map<string, Set<string>>();
  for (let round = 0; round < pollsPerJob; round++) {
    for (const { taskId } of tasks) {
      const response = await rawCall(url, "tasks/get", { taskId });
      expect(response.body?.result?.["status"], response.text.slice(0, 300)).toBe("working");
      const replica = response.headers.get("x-replica") ?? "direct";
      answeredBy.set(taskId, (answeredBy.get(taskId) ?? new Set()).add(replica));
    }
  }
  const reads = [...proxy.reads.values()].reduce((sum, value) => sum + value, 0) - readsBefore;
  return { readsPerPoll: reads / (tasks.length * pollsPerJob), readsPerJob: reads / tasks.length, answeredBy };
}

describe("two replicas behind nginx, consistent hash on Mcp-Name (README: Replicas)", () => {
  it("costs the upstream what one replica costs (round robin: twice that), and a stopped replica's tasks are answered by the other", async () => {
    const single = await pollThrough(replicas[0]!.url, await createTasks(jobs));
    const hashed = await pollThrough(hashedUrl, await createTasks(jobs));
    const roundRobin = await pollThrough(roundRobinUrl, await createTasks(jobs));

    // One read per job and cache window, exactly: what a single replica pays.
    expect(single.readsPerJob).toBe(1);
    expect(hashed.readsPerJob).toBe(1);
    // Round robin alternates the polls of each task between the replicas, and each reads for itself.
    expect(roundRobin.readsPerJob).toBe(2);
    expect(roundRobin.readsPerPoll / hashed.readsPerPoll).toBe(2);
    for (const replicasOfTask of hashed.answeredBy.values()) expect(replicasOfTask.size).toBe(1);
    for (const replicasOfTask of roundRobin.answeredBy.values()) expect(replicasOfTask.size).toBe(2);

    // Stop the replica that answered the first task; its tasks move to the other, which opens the same ids.
    const hashedTasks = [...hashed.answeredBy.entries()];
    const stoppedAddress = [...hashedTasks[0]![1]][0]!;
    const stopped = replicas.find((replica) => stoppedAddress.endsWith(`:${new URL(replica.url).port}`))!;
    const remaining = replicas.find((replica) => replica !== stopped)!;
    const remainingPort = new URL(remaining.url).port;
    const movedTasks = hashedTasks.filter(([, answered]) => answered.has(stoppedAddress)).map(([taskId]) => taskId);
    await stopped.kill();
    for (const taskId of movedTasks) {
      const response = await rawCall(hashedUrl, "tasks/get", { taskId });
      expect(response.body?.result, response.text.slice(0, 300)).toMatchObject({ taskId, status: "working" });
      // nginx tried the stopped replica first (refused), then the other: "127.0.0.1:A, 127.0.0.1:B".
      expect(response.headers.get("x-replica")?.split(", ").at(-1)).toBe(`127.0.0.1:${remainingPort}`);
    }
  }, 240_000);
});
