import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer, createConnection } from "node:net";
import type { AddressInfo } from "node:net";
import { ensureDebianProgram } from "./debian-package.js";

/**
 * A real Redis for a test file: Debian's redis-server (installed when missing), on a free loopback port,
 * with nothing written to disk (`--save '' --appendonly no`), started and stopped by the test. `stop` and
 * `start` again on the same port are a Redis that died and came back (empty, as after a restart).
 */
export interface TestRedis {
  url: string;
  port: number;
  /** Kill it (SIGKILL) and wait until it is gone. */
  stop(): Promise<void>;
  /** Start it again on the same port (after stop). */
  start(): Promise<void>;
}

export function ensureRedisServer(): string {
  return ensureDebianProgram("redis-server", [
    "/usr/bin/redis-server",
    "/usr/sbin/redis-server",
    "/usr/local/bin/redis-server",
  ]);
}

/**
 * Run one redis-cli command against the test's Redis (Debian's redis-tools, installed with the server),
 * without blocking the test's event loop (DEBUG SLEEP holds it for as long as Redis sleeps).
 */
export function redisCommand(redis: TestRedis, ...args: string[]): Promise<string> {
  const cli = ensureDebianProgram("redis-tools", ["/usr/bin/redis-cli", "/usr/local/bin/redis-cli"]);
  return new Promise((resolve, reject) => {
    const child = spawn(cli, ["-h", "127.0.0.1", "-p", String(redis.port), "--raw", ...args]);
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve(output) : reject(new Error(`redis-cli ${args[0]} exited ${code}`)),
    );
  });
}

/** Keys under a prefix, with their remaining time to live (ms; -1 means none) and their values. */
export function redisKeys(redis: TestRedis, pattern: string): Array<{ key: string; ttlMs: number; value: string }> {
  const cli = ensureDebianProgram("redis-tools", ["/usr/bin/redis-cli", "/usr/local/bin/redis-cli"]);
  const run = (...args: string[]) =>
    spawnSync(cli, ["-h", "127.0.0.1", "-p", String(redis.port), "--raw", ...args], { encoding: "utf8" }).stdout;
  return run("--scan", "--pattern", pattern)
    .split("\n")
    .filter((key) => key !== "")
    .map((key) => ({ key, ttlMs: Number(run("PTTL", key).trim()), value: run("GET", key) }));
}

export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startTestRedis(options: { password?: string } = {}): Promise<TestRedis> {
  const binary = ensureRedisServer();
  const port = await freeLoopbackPort();
  let child: ChildProcess | undefined;
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--daemonize",
    "no",
    // DEBUG SLEEP lets a test make this Redis slow, from loopback only.
    "--enable-debug-command",
    "local",
    ...(options.password ? ["--requirepass", options.password] : []),
  ];
  const start = async () => {
    let output = "";
    child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 10_000;
    while (!(await answers(port))) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`redis-server did not start on port ${port}:\n${output.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGKILL");
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, start, stop };
}

/** Whether something accepts a connection on the port. */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
