import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repositoryRoot } from "./support/cli-process.js";
import { ensureDebianProgram } from "./support/debian-package.js";
import { ensureRedisServer, freeLoopbackPort } from "./support/redis-server.js";
import { pollUntil, rawCall, rawResult } from "./support/raw-rpc.js";

/**
 * examples/replicas run as a user starts it: `start.sh` brings up Redis, the demo job API, three `jobtasks
 * serve` replicas and nginx round robin in front. A client per replica polls its own tasks through nginx
 * while one replica is SIGKILLed mid-load: no request fails (nginx resends tasks/get, by its Mcp-Method
 * header, to another replica), and no task ever moves backwards (once completed, never working again).
 */

let workspace: string;
let script: ChildProcess | undefined;
let scriptOutput = "";
let url: string;

const runFile = (name: string) => join(workspace, name);
const log = (name: string) => {
  try {
    return readFileSync(runFile(name), "utf8");
  } catch {
    return "";
  }
};

beforeAll(async () => {
  ensureRedisServer();
  ensureDebianProgram("nginx", ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"]);
  workspace = await mkdtemp(join(tmpdir(), "jobtasks-replicas-recipe-"));
  const ports = await Promise.all(Array.from({ length: 6 }, () => freeLoopbackPort()));
  const [listen, redis, demoApi, ...replicaPorts] = ports as [number, number, number, number, number, number];
  script = spawn("bash", [join(repositoryRoot, "examples/replicas/start.sh")], {
    env: {
      ...process.env,
      LISTEN_PORT: String(listen),
      REDIS_PORT: String(redis),
      DEMO_API_PORT: String(demoApi),
      REPLICA_PORTS: replicaPorts.join(" "),
      RUN_DIR: workspace,
      JOBTASKS_LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  script.stdout!.on("data", (chunk: Buffer) => (scriptOutput += chunk.toString()));
  script.stderr!.on("data", (chunk: Buffer) => (scriptOutput += chunk.toString()));
  url = `http://127.0.0.1:${listen}/mcp`;
  const running = script;
  await pollUntil(
    async () => {
      if (running.exitCode !== null) throw new Error(`start.sh exited (${running.exitCode}):\n${scriptOutput}`);
      const sharing = [1, 2, 3].every((replica) => log(`replica-${replica}.log`).includes('"msg":"listening"'));
      if (!sharing) return 0;
      return rawCall(url, "server/discover", {}).then(
        (response) => response.httpStatus,
        () => 0,
      );
    },
    (status) => status === 200,
    60_000,
    100,
  );
}, 300_000);

afterAll(async () => {
  if (script && script.exitCode === null) {
    const exited = new Promise((resolve) => script!.once("exit", resolve));
    script.kill("SIGTERM");
    await exited;
  }
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

describe("examples/replicas: three replicas, nginx round robin and Redis, from start.sh", () => {
  it("share Redis, lose no request when a replica is SIGKILLed mid-load, and never answer a finished task as working", async () => {
    for (const replica of [1, 2, 3])
      expect(log(`replica-${replica}.log`)).toContain("replicas share snapshots, answers and events through Redis");
    const clients = 3;
    const pollersPerClient = 4;
    const tasks: string[] = [];
    for (let client = 0; client < clients; client++) {
      const created = await rawResult(url, "tools/call", {
        name: "demo_pipeline",
        arguments: { steps: 2, stepMs: 1500 },
      });
      expect(created["resultType"]).toBe("task");
      tasks.push(created["taskId"] as string);
    }
    const failures: string[] = [];
    // Per task: when the first `completed` came back, and every answer with the time its request was sent.
    const completedAt = new Map<string, number>();
    const answers = new Map<string, Array<{ sentAt: number; status: string }>>(tasks.map((taskId) => [taskId, []]));
    let requests = 0;
    const poll = async (taskId: string, until: number) => {
      while (Date.now() < until) {
        const sentAt = performance.now();
        const response = await rawCall(url, "tasks/get", { taskId }).catch((error: Error) => error);
        requests += 1;
        if (response instanceof Error) failures.push(response.message);
        else if (response.httpStatus !== 200 || !response.body?.result)
          failures.push(`${response.httpStatus} ${response.text.slice(0, 200)}`);
        else {
          const status = response.body.result["status"] as string;
          answers.get(taskId)!.push({ sentAt, status });
          if (status === "completed" && !completedAt.has(taskId)) completedAt.set(taskId, performance.now());
        }
      }
    };
    const until = Date.now() + 7000;
    const load = tasks.flatMap((taskId) => Array.from({ length: pollersPerClient }, () => poll(taskId, until)));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const victim = Number(readFileSync(runFile("replica-2.pid"), "utf8").trim());
    const replicaUrls = [1, 3].map((replica) => /"url":"(http:[^"]+)"/.exec(log(`replica-${replica}.log`))![1]!);
    // Frozen first, so that requests nginx sent it are in flight when it dies; then killed.
    process.kill(victim, "SIGSTOP");
    await new Promise((resolve) => setTimeout(resolve, 500));
    process.kill(victim, "SIGKILL");
    await Promise.all(load);

    expect(failures).toEqual([]);
    expect(requests).toBeGreaterThan(100);
    for (const [taskId, seen] of answers) {
      expect(seen.at(-1)?.status, taskId).toBe("completed");
      // A request sent after any replica answered completed is never answered working (requests that
      // overlapped the first completed answer may come back in either order).
      const after = seen.filter((answer) => answer.sentAt > completedAt.get(taskId)!);
      expect(after.length).toBeGreaterThan(10);
      expect(after.filter((answer) => answer.status !== "completed")).toEqual([]);
    }
    // A client on each surviving replica, past nginx: both answer every task as finished.
    for (const replicaUrl of replicaUrls)
      for (const taskId of tasks)
        expect((await rawResult(replicaUrl, "tasks/get", { taskId }))["status"]).toBe("completed");
  }, 120_000);
});
